/* test_qemu.c - device models from qemu command lines (Xen and KVM forms, odd quoting). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sources/topology/topology.h"

/* Build a NUL-separated command line from a NULL-terminated argv. */
static size_t cmdline(char *buf, size_t cap, const char *const *argv)
{
	size_t len = 0;
	for (; *argv; argv++) {
		size_t n = strlen(*argv) + 1;
		assert_true(len + n <= cap);
		memcpy(buf + len, *argv, n);
		len += n;
	}
	return len;
}

static int parse(const char *const *argv, struct qemu_proc *q)
{
	char buf[4096];
	memset(q, 0, sizeof(*q));
	q->pid = 42;
	return topo_parse_qemu_cmdline(buf, cmdline(buf, sizeof(buf), argv), q);
}

static void test_xen_qemu(void **state)
{
	(void)state;
	const char *argv[] = {"/usr/bin/qemu-system-i386",
	                      "-xen-domid",
	                      "5",
	                      "-name",
	                      "guest=web1,debug-threads=on",
	                      "-drive",
	                      "file=/var/lib/xen/images/web1.img,if=ide,format=raw",
	                      NULL};
	struct qemu_proc q;
	assert_int_equal(parse(argv, &q), 0);
	assert_int_equal(q.xen_domid, 5);
	assert_string_equal(q.name, "web1");
	assert_int_equal(q.n_disks, 1);
	assert_string_equal(q.disks[0], "/var/lib/xen/images/web1.img");
	topo_qemu_proc_free(&q);
}

/* the device model as Xen's install and Fedora name it, a PV guest's qdisk */
static void test_xen_named_qemu(void **state)
{
	(void)state;
	const char *argv[] = {"/usr/libexec/xen-qemu-system-i386",
	                      "-xen-domid",
	                      "7",
	                      "-xen-attach",
	                      "-name",
	                      "db2",
	                      "-machine",
	                      "xenpv",
	                      NULL};
	struct qemu_proc q;
	assert_int_equal(parse(argv, &q), 0);
	assert_int_equal(q.xen_domid, 7);
	assert_string_equal(q.name, "db2");
	topo_qemu_proc_free(&q);
	/* a name that only ends in qemu is not one */
	const char *other[] = {"/usr/bin/not-qemu", "-xen-domid", "7", NULL};
	assert_int_equal(parse(other, &q), -1);
}

static void test_old_qemu_dm(void **state)
{
	(void)state;
	const char *argv[] = {
	    "/usr/lib/xen/bin/qemu-dm", "-d", "12", "-hda", "/domU/banksy/ad0", "-hdb",
	    "/domU/banksy/ad1",         NULL};
	struct qemu_proc q;
	assert_int_equal(parse(argv, &q), 0);
	assert_int_equal(q.xen_domid, 12);
	assert_int_equal(q.n_disks, 2);
	assert_string_equal(q.disks[1], "/domU/banksy/ad1");
	topo_qemu_proc_free(&q);
}

static void test_kvm_blockdev_and_escapes(void **state)
{
	(void)state;
	const char *argv[] = {
	    "qemu-system-x86_64",
	    "-name",
	    "plain-name,process=x",
	    "-blockdev",
	    "{\"driver\":\"file\",\"filename\":\"/img/a \\\"q\\\".raw\",\"node-name\":\"n0\"}",
	    "-blockdev",
	    "driver=file,filename=/img/b,,c.raw,node-name=n1",
	    "--drive",
	    "if=virtio,file=/img/d.qcow2",
	    "-drive",
	    "if=none",
	    NULL};
	struct qemu_proc q;
	assert_int_equal(parse(argv, &q), 0);
	assert_int_equal(q.xen_domid, -1);
	assert_string_equal(q.name, "plain-name");
	assert_int_equal(q.n_disks, 3);
	assert_string_equal(q.disks[0], "/img/a \"q\".raw");
	assert_string_equal(q.disks[1], "/img/b,c.raw"); /* ",," is a literal comma */
	assert_string_equal(q.disks[2], "/img/d.qcow2");
	topo_qemu_proc_free(&q);
}

static void test_not_qemu_and_odd_input(void **state)
{
	(void)state;
	struct qemu_proc q;
	const char *bash[] = {"/bin/bash", "-c", "qemu-system-x86_64 -xen-domid 3", NULL};
	assert_int_equal(parse(bash, &q), -1);
	/* bad domid, a dangling option, unterminated JSON: no disk, no crash */
	const char *odd[] = {"qemu-system-i386",   "-xen-domid", "99999999", "-blockdev",
	                     "{\"filename\":\"/x", "-name",      NULL};
	assert_int_equal(parse(odd, &q), 0);
	assert_int_equal(q.xen_domid, -1);
	assert_int_equal(q.n_disks, 0);
	topo_qemu_proc_free(&q);
	/* an empty command line (a kernel thread) */
	char empty[1] = {0};
	memset(&q, 0, sizeof(q));
	assert_int_equal(topo_parse_qemu_cmdline(empty, 0, &q), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_xen_qemu),
	    cmocka_unit_test(test_xen_named_qemu),
	    cmocka_unit_test(test_old_qemu_dm),
	    cmocka_unit_test(test_kvm_blockdev_and_escapes),
	    cmocka_unit_test(test_not_qemu_and_odd_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
