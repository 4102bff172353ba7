/* fileio.bpf.h - file-level guest I/O of device models: read/write syscalls and io_uring
 * completions on image files (not bios: a device model's guest bytes).
 */
#ifndef XIOTOP_FILEIO_BPF_H
#define XIOTOP_FILEIO_BPF_H

#include <bpf/bpf_tracing.h>

#include "latency.bpf.h"
#include "maps.bpf.h"

#define SYS_IO_SUBMIT 3 /* sys_pending.is_write: inside io_submit (native AIO) */

/* A device-model thread inside a read/write syscall: which fd, which direction, since
 * when (not with --no-latency). */
struct sys_pending {
	int fd;
	u32 is_write; /* 0 none pending, 1 read, 2 write, SYS_IO_SUBMIT */
	u64 start_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sys_pending);
} sys_now SEC(".maps");

/* Is the current task a device-model thread inside io_submit? Native AIO is O_DIRECT in
 * qemu: its bios leave in the submitter's context, so they are also its guest bytes. */
static __always_inline bool in_io_submit(void)
{
	struct sys_pending *p = bpf_task_storage_get(&sys_now, bpf_get_current_task_btf(), NULL, 0);
	return p && p->is_write == SYS_IO_SUBMIT;
}

/* The inode behind fd in the current task's file table. */
static __always_inline struct inode *fd_inode(int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	if (!fdt || fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	struct file **fds = BPF_CORE_READ(fdt, fd);
	struct file *f = NULL;
	bpf_probe_read_kernel(&f, sizeof(f), fds + fd);
	return f ? BPF_CORE_READ(f, f_inode) : NULL;
}

/* The domain charged (the file's owner), or XIOTOP_DOM_NONE. */
static __always_inline u32 charge_file_io(struct inode *inode, bool is_write, u64 bytes)
{
	u32 *owner = inode_owner(inode);
	if (!owner || !bytes)
		return XIOTOP_DOM_NONE;
	u32 domid = *owner;
	charge_io(domid, BPF_CORE_READ(inode, i_sb, s_dev), XIOTOP_VIA_FILEIO, is_write, bytes);
	return domid;
}

/* 1 read, 2 write, SYS_IO_SUBMIT, or 0 for a syscall that moves no file data. */
static __always_inline u32 sys_direction(long id)
{
	if (id == NR_READ || id == NR_PREAD || id == NR_READV || id == NR_PREADV ||
	    id == NR_PREADV2)
		return 1;
	if (id == NR_WRITE || id == NR_PWRITE || id == NR_WRITEV || id == NR_PWRITEV ||
	    id == NR_PWRITEV2)
		return 2;
	return id == NR_IO_SUBMIT ? SYS_IO_SUBMIT : 0;
}

static __always_inline int on_sys_enter(struct pt_regs *regs, long id)
{
	if (!tgid_marked(bpf_get_current_pid_tgid() >> 32))
		return 0; /* not a device model: the common case, two loads */
	u32 is_write = sys_direction(id);
	if (!is_write)
		return 0;
	struct sys_pending *p = bpf_task_storage_get(&sys_now, bpf_get_current_task_btf(), NULL,
	                                             BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (p) {
		p->fd = PT_REGS_PARM1_CORE_SYSCALL(regs);
		p->is_write = is_write;
		if (track_latency)
			p->start_ns = bpf_ktime_get_ns();
	}
	return 0;
}

static __always_inline int on_sys_exit(long ret)
{
	struct sys_pending *p = bpf_task_storage_get(&sys_now, bpf_get_current_task_btf(), NULL, 0);
	if (!p || !p->is_write)
		return 0;
	u32 is_write = p->is_write;
	p->is_write = 0;
	if (is_write == SYS_IO_SUBMIT)
		return 0; /* its bytes were counted as its bios went out (in_io_submit) */
	if (ret <= 0 || !device_model_domid(bpf_get_current_pid_tgid() >> 32))
		return 0;
	u32 domid = charge_file_io(fd_inode(p->fd), is_write == 2, ret);
	/* the syscall's duration: the guest's I/O as the device model served it */
	if (track_latency && domid != XIOTOP_DOM_NONE) {
		u64 now = bpf_ktime_get_ns();
		latency_add(domid, is_write == 2 ? XIOTOP_LAT_WRITE : XIOTOP_LAT_READ,
		            now > p->start_ns ? now - p->start_ns : 0);
	}
	return 0;
}

/* io_uring read/write completions on an image file, whichever thread completes them. */
static __always_inline int on_uring_complete(void *req_ptr, struct io_uring_cqe *cqe)
{
	struct io_kiocb *req = req_ptr;
	u8 op = BPF_CORE_READ(req, opcode);
	bool is_write;
	if (op == IORING_OP_READV || op == IORING_OP_READ_FIXED || op == IORING_OP_READ)
		is_write = false;
	else if (op == IORING_OP_WRITEV || op == IORING_OP_WRITE_FIXED || op == IORING_OP_WRITE)
		is_write = true;
	else
		return 0;
	s32 res = BPF_CORE_READ(cqe, res);
	if (res > 0)
		charge_file_io(BPF_CORE_READ(req, file, f_inode), is_write, res);
	return 0;
}

#endif
