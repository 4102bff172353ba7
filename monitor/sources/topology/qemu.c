/* qemu.c - device models found in /proc: Xen qemu (-xen-domid N, old qemu-dm -d N) joins
 * domain N; a qemu without a Xen domain id (a KVM host) becomes a domain of its own, with
 * the id XT_KVM_DOMID_BASE + pid (stable for the process' life). Its disks come from
 * -drive file=, -blockdev filename= and -hdX arguments, each resolved like a qdisk image.
 * Command lines are untrusted text: odd quoting yields no disk, never a crash. */
#include "sources/topology/topology.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QEMU_MAX_ARGS 512
#define CMDLINE_MAX   65536

/* Value of `key` in a qemu option string ("a=b,key=v,,alue,c=d"); ",," is a literal
 * comma. A first element without '=' is returned for key "" (as -name NAME,...). */
static int qemu_opt(const char *opts, const char *key, char *out, size_t outlen)
{
	size_t klen = strlen(key);
	const char *p = opts;
	bool first = true;
	while (*p) {
		/* the element runs to the next single comma */
		const char *eq = NULL, *q = p;
		while (*q && !(*q == ',' && q[1] != ',')) {
			if (*q == ',' && q[1] == ',')
				q++;
			else if (*q == '=' && !eq)
				eq = q;
			q++;
		}
		bool match = klen ? (eq && (size_t)(eq - p) == klen && !strncmp(p, key, klen))
		                  : (first && !eq);
		if (match) {
			const char *v = klen ? eq + 1 : p;
			size_t o = 0;
			for (; v < q && o + 1 < outlen; v++) {
				if (*v == ',' && v + 1 < q && v[1] == ',')
					v++;
				out[o++] = *v;
			}
			out[o] = '\0';
			return 0;
		}
		first = false;
		p = *q ? q + 1 : q;
	}
	return -1;
}

/* "filename" of a JSON -blockdev ({"driver":"file","filename":"/x"}): a plain scan for
 * the key, enough for the flat objects libvirt and users write. */
static int json_filename(const char *json, char *out, size_t outlen)
{
	const char *k = strstr(json, "\"filename\"");
	if (!k)
		return -1;
	k = strchr(k + 10, ':');
	if (!k)
		return -1;
	while (*++k == ' ')
		;
	if (*k != '"')
		return -1;
	size_t o = 0;
	for (k++; *k && *k != '"' && o + 1 < outlen; k++) {
		if (*k == '\\' && k[1])
			k++;
		out[o++] = *k;
	}
	out[o] = '\0';
	return *k == '"' ? 0 : -1;
}

static void add_disk(struct qemu_proc *q, const char *path)
{
	if (!path[0] || q->n_disks == QEMU_MAX_DISKS)
		return;
	for (size_t i = 0; i < q->n_disks; i++)
		if (!strcmp(q->disks[i], path))
			return;
	char *copy = strdup(path);
	if (copy)
		q->disks[q->n_disks++] = copy;
}

/* qemu-system-*, qemu-dm, or the name Xen's own install and Fedora's package give the
 * device model: /usr/libexec/xen-qemu-system-i386 */
static bool is_qemu(const char *argv0)
{
	const char *base = strrchr(argv0, '/');
	base = base ? base + 1 : argv0;
	return !strncmp(base, "qemu", 4) || !strncmp(base, "xen-qemu", 8);
}

static long parse_domid(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	return (*s && !*end && v >= 0 && v <= 0x7fff) ? v : -1;
}

/* A NUL-separated command line split into args (at most QEMU_MAX_ARGS); their count. */
static size_t split_args(const char *buf, size_t len, const char *args[QEMU_MAX_ARGS])
{
	size_t n = 0;
	for (size_t i = 0; i < len && n < QEMU_MAX_ARGS; i += strlen(buf + i) + 1)
		args[n++] = buf + i;
	return n;
}

/* An option as qemu reads it: --opt is -opt. */
static const char *qemu_optname(const char *opt)
{
	return opt[0] == '-' && opt[1] == '-' ? opt + 1 : opt;
}

/* Whether args[i] names the Xen domain the process serves: -xen-domid (an old
 * qemu-dm's -d), its value args[i + 1]. */
static bool is_domid_opt(const char *const *args, size_t i)
{
	const char *opt = qemu_optname(args[i]);
	return !strcmp(opt, "-xen-domid") || (!strcmp(opt, "-d") && strstr(args[0], "qemu-dm"));
}

/* Parse one NUL-separated command line. Returns 0 if it is a qemu. */
int topo_parse_qemu_cmdline(const char *buf, size_t len, struct qemu_proc *q)
{
	const char *args[QEMU_MAX_ARGS];
	size_t n = split_args(buf, len, args);
	if (!n || !is_qemu(args[0]))
		return -1;
	q->xen_domid = -1;
	char val[4096];
	for (size_t i = 1; i + 1 < n; i++) {
		const char *opt = qemu_optname(args[i]), *arg = args[i + 1];
		if (is_domid_opt(args, i)) {
			q->xen_domid = parse_domid(arg);
		} else if (!strcmp(opt, "-name")) {
			if (qemu_opt(arg, "guest", q->name, sizeof(q->name)))
				qemu_opt(arg, "", q->name, sizeof(q->name));
		} else if (!strcmp(opt, "-drive")) {
			if (!qemu_opt(arg, "file", val, sizeof(val)))
				add_disk(q, val);
		} else if (!strcmp(opt, "-blockdev")) {
			if (arg[0] == '{' ? !json_filename(arg, val, sizeof(val))
			                  : !qemu_opt(arg, "filename", val, sizeof(val)))
				add_disk(q, val);
		} else if (!strncmp(opt, "-hd", 3) && strlen(opt) == 4 &&
		           islower((unsigned char)opt[3])) {
			add_disk(q, arg);
		} else {
			continue;
		}
		i++;
	}
	return 0;
}

/* Whether one NUL-separated command line names Xen domain `domid`: -xen-domid N (an old
 * qemu-dm's -d N). 1 yes, 0 no, -1 empty. */
int topo_cmdline_names_domid(const char *buf, size_t len, uint32_t domid)
{
	const char *args[QEMU_MAX_ARGS];
	size_t n = split_args(buf, len, args);
	if (!n)
		return -1;
	for (size_t i = 1; i + 1 < n; i++)
		if (is_domid_opt(args, i) && parse_domid(args[i + 1]) == (long)domid)
			return 1;
	return 0;
}

/* PROC/PID/cmdline into buf (CMDLINE_MAX bytes, NUL-terminated): its length, or -1 when
 * it cannot be read (the process is gone, or no such /proc). */
static long read_cmdline(const char *proc, long pid, char *buf)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%ld/cmdline", proc, pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	size_t len = fread(buf, 1, CMDLINE_MAX - 1, f);
	fclose(f);
	buf[len] = '\0';
	return (long)len;
}

int topo_pid_names_domid(const struct xt_roots *roots, int pid, uint32_t domid)
{
	const char *proc = roots && roots->proc ? roots->proc : "/proc";
	char *buf = malloc(CMDLINE_MAX);
	if (!buf)
		return -1;
	long len = read_cmdline(proc, pid, buf);
	int rc = len < 0 ? -1 : topo_cmdline_names_domid(buf, (size_t)len, domid);
	free(buf);
	return rc;
}

void topo_qemu_proc_free(struct qemu_proc *q)
{
	for (size_t i = 0; i < q->n_disks; i++)
		free(q->disks[i]);
	q->n_disks = 0;
}

static bool has_image(const struct xt_domain *d, const char *path)
{
	for (size_t i = 0; i < d->n_backends; i++)
		if (d->backends[i].params && !strcmp(d->backends[i].params, path))
			return true;
	return false;
}

static int merge(const struct xt_roots *roots, struct xt_topology *t, const struct qemu_proc *q)
{
	uint32_t domid =
	    q->xen_domid >= 0 ? (uint32_t)q->xen_domid : XT_KVM_DOMID_BASE + (uint32_t)q->pid;
	struct xt_domain *d = topo_domain_slot(t, domid);
	if (!d)
		return -1;
	if (!d->name) {
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "qemu-%d", q->pid);
		d->name = strdup(q->name[0] ? q->name : fallback);
	}
	if (!d->device_model_pid)
		d->device_model_pid = q->pid;
	for (size_t i = 0; i < q->n_disks; i++) {
		if (has_image(d, q->disks[i]))
			continue;
		struct xt_backend *b = topo_backend_add(d, XT_BK_QDISK, (uint32_t)i);
		if (!b)
			return -1;
		b->type = strdup("qemu");
		b->params = strdup(q->disks[i]);
		topo_resolve_file(roots, q->disks[i], b);
	}
	return 0;
}

int topo_add_qemu_processes(const struct xt_roots *roots, struct xt_topology *t)
{
	const char *proc = roots && roots->proc ? roots->proc : "/proc";
	DIR *dir = opendir(proc);
	if (!dir)
		return -1;
	char *buf = malloc(CMDLINE_MAX);
	if (!buf) {
		closedir(dir);
		return -1;
	}
	struct dirent *e;
	int found = 0;
	while ((e = readdir(dir))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		long len = read_cmdline(proc, pid, buf);
		if (len < 0)
			continue; /* exited meanwhile */
		struct qemu_proc q = {.pid = (int)pid};
		if (topo_parse_qemu_cmdline(buf, (size_t)len, &q) == 0) {
			if (merge(roots, t, &q) == 0)
				found++;
		}
		topo_qemu_proc_free(&q);
	}
	free(buf);
	closedir(dir);
	return found;
}
