/* topology.h - who is who: domains, their backends, and each backend's device stack.
 *
 * Contract: every source (xenstore dump, live xenstore, /proc qemu discovery, scenario)
 * produces a struct xt_topology. Each backend is resolved through sysfs down to its leaf
 * devices; a backend that cannot be resolved is kept and marked (`missing`, `error`),
 * never dropped. All strings are heap copies owned by the topology (topo_free()).
 * Device numbers are kernel dev_t (major << 20 | minor), as BPF sees them.
 * Paths under /sys and /proc are read relative to `struct xt_roots` so tests can point
 * at fixture trees.
 */
#ifndef XIOTOP_TOPOLOGY_H
#define XIOTOP_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"

#define XT_KDEV(maj, min) ((uint32_t)(((maj) << 20) | (min)))
#define XT_KDEV_MAJOR(d)  ((uint32_t)(d) >> 20)
#define XT_KDEV_MINOR(d)  (((uint32_t)(d)) & 0xfffff)

struct xt_roots {
	const char *sysfs; /* "/sys" live, a fixture tree in tests */
	const char *proc;  /* "/proc" */
	const char *dev;   /* "/dev" (only used to map /dev/loopN style paths to names) */
	/* --image-dir: where files named in xenstore may be (besides /dev); none: any file
	 * whose path has no ".." component (see topo_path_allowed) */
	const char *const *image_dirs;
	size_t n_image_dirs;
};

enum xt_backend_kind {
	XT_BK_VBD,   /* .../backend/vbd/<domid>/<devid> (blkback) */
	XT_BK_QDISK, /* .../backend/qdisk/<domid>/<devid> (qemu) */
};

enum xt_role {
	XT_ROLE_BACKEND, /* the device or file the backend serves the guest from */
	XT_ROLE_STACKED, /* an intermediate block device (whole disk of a partition, dm/md slave) */
	XT_ROLE_FILE,    /* a backing/image file */
	XT_ROLE_LEAF,    /* a physical device at the bottom of the stack */
};

/* What a loop device's file goes through (its loop/dio); `losetup --direct-io` switches
 * it at any time. */
enum xt_loop_mode {
	XT_NOT_LOOP = 0,      /* not a loop device */
	XT_LOOP_BUFFERED,     /* loop/dio 0: the file's pages in dom0's page cache first */
	XT_LOOP_DIRECT_IO,    /* loop/dio 1: past dom0's page cache */
	XT_LOOP_MODE_UNKNOWN, /* a loop device whose loop/dio could not be read */
};

/* One node of a backend's stack, in pre-order from the backend down. */
struct xt_layer {
	enum xt_role role;
	int depth;       /* 0 for the backend itself, +1 per level down */
	uint32_t dev;    /* kernel dev_t of a block device; 0 for a file */
	char *name;      /* block device name ("loop0", "vda1"); NULL for a file */
	char *path;      /* file path for XT_ROLE_FILE; NULL otherwise */
	uint64_t ino;    /* XT_ROLE_FILE: inode number (0 if the file is gone) */
	uint32_t fs_dev; /* XT_ROLE_FILE: kernel dev_t of the filesystem holding it */
	bool is_leaf; /* device with nothing below it (may also be the backend: zram, raw disk) */
	enum xt_loop_mode loop_mode;
};

struct xt_backend {
	enum xt_backend_kind kind;
	uint32_t devid;       /* xenstore <devid> */
	char *dev;            /* guest-visible name, "xvda" (may be NULL) */
	char *type;           /* "phy", "file", "qdisk", ... (may be NULL) */
	char *mode;           /* "w" / "r" (may be NULL) */
	char *params;         /* path given by the toolstack (may be NULL) */
	uint32_t backend_dev; /* kernel dev_t of the backend device, 0 if none (qdisk file) */
	bool missing;         /* device or file not found: listed, marked, not traced */
	char *error;          /* why it is missing or odd (NULL if fine) */
	struct xt_layer *layers;
	size_t n_layers;
};

struct xt_domain {
	uint32_t domid;
	char *name;           /* raw, may hold control characters: sanitize before output */
	int device_model_pid; /* 0 if none */
	struct xt_backend *backends;
	size_t n_backends;
	char *uuid;          /* from /local/domain/<domid>/vm ("/vm/<uuid>"); NULL unknown */
	uint32_t generation; /* set by topo_generations_apply(); 0 until then */
};

struct xt_topology {
	char *source; /* "xenstore-dump FILE", "proc", ... */
	struct xt_domain *domains;
	size_t n_domains; /* sorted by domid */
};

/* --- xenstore dump: a flat list of absolute paths and unescaped values --- */
struct xs_entry {
	char *path;  /* "/local/domain/1/name" */
	char *value; /* unescaped bytes, NUL terminated; value_len excludes the NUL */
	size_t value_len;
	bool truncated; /* plain xenstore-ls cut the value at 80 columns ("...\...") */
};
struct xs_store {
	struct xs_entry *entries; /* sorted by path, one entry per path */
	size_t n;
	size_t cap;
	char *name; /* the dump's file name (NULL if unknown) */
};

/* Parse `xenstore-ls -f` lines (`/a/b = "v"`) or plain `xenstore-ls` trees (one space
 * per level, `name = "v"`); the form is detected per file. Values use xenstore-ls
 * escapes (\\, \", \n, \t, \r, \xNN, octal \NNN); `-p` permissions after a value are
 * ignored; blank lines, trailing blanks and CRLF are accepted. Returns 0, or -1 with
 * err, XERR_INPUT "FILE:LINE: reason" (or XERR_NOMEM); out is then empty. */
int xs_parse_file(const char *file, struct xs_store *out, struct xerr *err);
int xs_parse_stream(FILE *in, const char *name, struct xs_store *out, struct xerr *err);
const char *xs_get(const struct xs_store *s, const char *path); /* NULL if absent */
const struct xs_entry *xs_find(const struct xs_store *s, const char *path);
/* Build a store by hand (live xenstore, tests): add in any order, then sort once.
 * xs_store_sort() keeps the last value added for a path. Returns 0 or -1 (ENOMEM). */
int xs_store_add(struct xs_store *s, const char *path, const char *value, size_t value_len);
void xs_store_sort(struct xs_store *s);
void xs_free(struct xs_store *s);

/* Build domains and backends from a parsed store, then resolve each stack.
 * Returns 0; problems with one backend mark it and never fail the whole (-1 only when
 * out of memory). `roots` or any of its fields may be NULL: /sys, /proc, /dev.
 * out->source is "xenstore-dump <store name>". */
int topo_from_xenstore(const struct xs_store *s, const struct xt_roots *roots,
                       struct xt_topology *out);
/* Strip a qemu/libxl format prefix from a disk path: "aio:/x", "raw:/x", "qcow2:/x" -> "/x". */
const char *topo_strip_format(const char *params);

/* Resolve the stack below a block device (loop -> backing file -> fs device -> leaf,
 * partition -> whole disk, dm/md -> slaves) into b->layers. */
int topo_resolve_dev(const struct xt_roots *roots, uint32_t dev, struct xt_backend *b);
/* Same for a backend that is a plain file (qdisk image): the file is an XT_ROLE_FILE layer
 * at depth 0, its filesystem's device below it. A /dev path or a block device node is
 * resolved as a device. */
int topo_resolve_file(const struct xt_roots *roots, const char *path, struct xt_backend *b);

/* Facts about one block device, read from sysfs (/sys/dev/block/MAJ:MIN). */
struct xt_devinfo {
	char name[32]; /* "loop0" */
	bool exists;
	bool is_partition; /* parent in `parent` */
	uint32_t parent;   /* whole disk dev_t of a partition */
	bool is_loop;
	bool is_leaf; /* whole disk, not loop, no slaves (vda, sda, zram0, nvme0n1) */
	/* redundant md arrays (md/level raid1, raid4, raid5, raid6, raid10) write a block to
	 * more than one member: the array, and a member of one (a holder of it) */
	bool is_array, in_array;
};
int topo_devinfo(const struct xt_roots *roots, uint32_t dev, struct xt_devinfo *out);
/* dev_t of a device name such as "loop0" or "vda1"; 0 if unknown. */
uint32_t topo_dev_by_name(const struct xt_roots *roots, const char *name);
/* dev_t of a device node path such as "/dev/loop3" or "/dev/mapper/vg-lv"; 0 if unknown. */
uint32_t topo_dev_by_path(const struct xt_roots *roots, const char *path);

/* Device models running now (/proc/<pid>/cmdline): qemu with -xen-domid N (or qemu-dm
 * -d N) joins domain N as its device model, with its image files as qdisk backends; a qemu
 * without one (KVM) becomes domain XT_KVM_DOMID_BASE + pid, named from -name. Returns
 * how many were found, -1 if /proc cannot be read. */
#define XT_KVM_DOMID_BASE 1000000u
int topo_add_qemu_processes(const struct xt_roots *roots, struct xt_topology *t);
#define QEMU_MAX_DISKS 32
struct qemu_proc {
	int pid;
	long xen_domid; /* -1: none (KVM) */
	char name[128];
	char *disks[QEMU_MAX_DISKS];
	size_t n_disks;
};
/* One NUL-separated command line into q (pid preset); 0 if it is a qemu. */
int topo_parse_qemu_cmdline(const char *buf, size_t len, struct qemu_proc *q);
void topo_qemu_proc_free(struct qemu_proc *q);
/* Whether a command line (NUL-separated) names Xen domain `domid` as the one its
 * process serves: -xen-domid N, or an old qemu-dm's -d N. 1 yes, 0 no, -1 empty (a
 * zombie, a kernel thread). topo_pid_names_domid() reads ROOTS->proc/PID/cmdline: -1
 * also when it cannot be read (the process is gone, or a fixture has no /proc). */
int topo_cmdline_names_domid(const char *buf, size_t len, uint32_t domid);
int topo_pid_names_domid(const struct xt_roots *roots, int pid, uint32_t domid);

/* May a path read from xenstore be followed? Only absolute paths without a ".." component,
 * under /dev or, when roots->image_dirs are given, under one of them (also once symlinks
 * are resolved). When not, `why` says so, naming `key` and the rule, for the mark. */
bool topo_path_allowed(const struct xt_roots *roots, const char *key, const char *path, char *why,
                       size_t whylen);

/* Domain ids are reused: which incarnation each domain of a topology is. A domid keeps its
 * generation while it stays listed with the same uuid; it gets the next one when it was
 * absent from the previous topology or its uuid changed. Generations start at 1. */
struct topo_generation_entry {
	uint32_t domid;
	uint32_t generation;
	char uuid[40];
	bool listed; /* in the last topology applied */
};
struct topo_generations {
	struct topo_generation_entry *seen;
	size_t n;
};
/* Set each domain's generation; 0, or -1 when out of memory (generations then 0). */
int topo_generations_apply(struct topo_generations *g, struct xt_topology *t);
void topo_generations_free(struct topo_generations *g);

void topo_print_text(FILE *out, const struct xt_topology *t);
void topo_print_json(FILE *out, const struct xt_topology *t);
const char *topo_role_name(enum xt_role r);         /* "backend", "stacked", "file", "leaf" */
const char *topo_kind_name(enum xt_backend_kind k); /* "vbd", "qdisk" */

const struct xt_domain *topo_find_domain(const struct xt_topology *t, uint32_t domid);
/* The domain `domid` of t, inserted (zeroed, in domid order) if absent; NULL on ENOMEM. */
struct xt_domain *topo_domain_slot(struct xt_topology *t, uint32_t domid);
/* A zeroed backend appended to d (kind and devid set); NULL on ENOMEM. */
struct xt_backend *topo_backend_add(struct xt_domain *d, enum xt_backend_kind kind, uint32_t devid);
/* Deep copy of a domain; on failure dst is partly filled and freed with its topology. */
int topo_domain_copy(struct xt_domain *dst, const struct xt_domain *src);
/* Frees what one backend holds (not the backend itself, which lives in its domain's array). */
void topo_backend_free(struct xt_backend *b);
void topo_free(struct xt_topology *t);

#endif
