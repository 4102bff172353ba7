/* import_meta.c - the meta facts of an imported recording, and its writing; see
 * import_build.h and record/SCHEMA.md ("Imported recordings"). */
#include "import/import_build.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/arrays.h"
#include "core/sanitize.h"

static void put(struct imp_result *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void put(struct imp_result *r, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	arrays_put_text(r->meta, &r->n_meta, IMP_META_MAX, key, fmt, ap);
	va_end(ap);
}

/* Appends ",word" (or "word") to list. */
static void add(char *list, size_t len, const char *word)
{
	size_t used = strlen(list);
	snprintf(list + used, len - used, "%s%s", used ? "," : "", word);
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path ? path : "";
}

static void counters(const struct imp_logs *in, long cpus, char *have, char *missing, size_t len)
{
	const struct imp_xentop *x = in->xentop;
	if (x) {
		add(have, len, "xentop_cpu");
		if (x->any_vbds && x->has_sect_columns)
			add(have, len, "xentop_vbd");
		else if (x->any_vbds && x->has_rdwr_columns)
			add(have, len, "xentop_vbd_reqs");
		if (x->has_vbd_lines)
			add(have, len, "xentop_vbd_lines");
		if (!x->any_vbds)
			add(missing, len,
			    "xentop_vbd (VBDS is 0 for every domain: NetBSD's "
			    "libxenstat collects no vbd statistics)");
		else if (!x->has_sect_columns)
			add(missing, len,
			    "xentop_vbd bytes (this xentop has no VBD_RSECT/WSECT: "
			    "requests only)");
	} else {
		add(missing, len, "xentop (--xentop: domains, guest VBD bytes, dom0 CPU)");
	}
	if (in->vmstat && in->vmstat->has_io)
		add(have, len, "vmstat_bo");
	else
		add(missing, len,
		    in->vmstat ? "vmstat_bo (NetBSD's vmstat has no bi/bo)"
		               : "vmstat_bo (--vmstat: Linux vmstat N)");
	if (in->vmstat && cpus > 0)
		add(have, len, "vmstat_cpu");
	else if (in->vmstat)
		add(missing, len, "vmstat_cpu (the CPU count is unknown: --cpus N)");
	if (in->iostat)
		add(have, len, "iostat_disks");
	else
		add(missing, len, "iostat_disks (--iostat: iostat -dx N)");
	add(missing, len,
	    "dom0_cpu_by_domain, dirty_pages, physical_by_domain (no tracer: "
	    "record with xiotop for them)");
}

static void iostat_devices(const struct imp_iostat *io, struct imp_result *r)
{
	const char *names[512];
	size_t n = 0;
	for (size_t j = 0; j < io->n; j++)
		for (size_t i = 0; i < io->reports[j].n && n < 512; i++) {
			bool seen = false;
			for (size_t k = 0; k < n && !seen; k++)
				seen = !strcmp(names[k], io->reports[j].devs[i].name);
			if (!seen)
				names[n++] = io->reports[j].devs[i].name;
		}
	char leaves[768] = "", stacked[768] = "";
	for (size_t i = 0; i < n; i++) {
		char safe[64]; /* log text: escaped, as the disks' names */
		sanitize_text(names[i], safe, sizeof(safe));
		add(imp_iostat_is_leaf(names, n, i) ? leaves : stacked, sizeof(leaves), safe);
	}
	put(r, "iostat_leaf_devices", "%s", leaves);
	put(r, "iostat_stacked_devices", "%s", stacked);
}

void imp_build_meta(const struct imp_logs *in, const struct imp_timeline *tl, long cpus,
                    struct imp_result *out)
{
	char have[768] = "", missing[768] = "", notes[768] = "";
	counters(in, cpus, have, missing, sizeof(have));
	put(out, "source", "import");
	put(out, "imported_from", "%s%s%s%s%s%s", in->xentop ? "xentop=" : "",
	    in->xentop ? base_name(in->xentop_file) : "", in->vmstat ? " vmstat=" : "",
	    in->vmstat ? base_name(in->vmstat_file) : "", in->iostat ? " iostat=" : "",
	    in->iostat ? base_name(in->iostat_file) : "");
	put(out, "imported_counters", "%s", have);
	put(out, "missing_counters", "%s", missing);
	put(out, "interval_s", "%g", tl->interval_s);
	put(out, "time_source", "%s", base_name(tl->time_from));
	/* which dom0 the logs came from: the advice explain gives must run there */
	bool netbsd = (in->vmstat && in->vmstat->netbsd) || (in->iostat && in->iostat->netbsd);
	put(out, "dom0_os", "%s", netbsd ? "netbsd" : in->vmstat || in->iostat ? "linux" : "");
	bool dom0 = false; /* a dom0less host's xentop has no Domain-0 row */
	for (size_t i = 0; in->xentop && i < in->xentop->n_rows && !dom0; i++)
		dom0 = !strcmp(in->xentop->rows[i].name, "Domain-0");
	put(out, "host_busy_source", "%s",
	    dom0                     ? "xentop Domain-0 CPU(sec)"
	    : in->vmstat && cpus > 0 ? "vmstat us+sy x cpu_count"
	                             : "");
	if (in->xentop) {
		put(out, "domid_rule",
		    "Domain-0 is 0; the others 1, 2, ... in order of first "
		    "appearance in the xentop log (xentop -b shows names only)");
		put(out, "xentop_vbd_lines", "%s",
		    !in->xentop->has_vbd_lines    ? "none"
		    : in->xentop->linux_vbd_lines ? "linux"
		                                  : "other (no [maj:min]: not Linux)");
		put(out, "pseudo_devices",
		    "%u:DOMID = a domain's xentop VBD totals; %u:N = iostat "
		    "device N",
		    IMP_VBD_MAJOR, IMP_DISK_MAJOR);
	}
	if (in->iostat)
		iostat_devices(in->iostat, out);
	const char *const parts[] = {in->xentop ? in->xentop->note : "",
	                             in->vmstat ? in->vmstat->note : "",
	                             in->iostat ? in->iostat->note : ""};
	for (int i = 0; i < 3; i++)
		if (parts[i][0])
			add(notes, sizeof(notes), parts[i]);
	if (notes[0])
		put(out, "import_notes", "%s", notes);
}

int imp_write(const char *path, const struct imp_result *r, struct xerr *err)
{
	struct rec_host_facts facts;
	memset(&facts, 0, sizeof(facts));
	facts.cpu_count = r->cpus;
	facts.mem_total_kb = r->dom0_mem_kb;
	struct rec_writer *w = rec_create(path, &facts, err);
	if (!w)
		return -1;
	struct xerr ignored;
	for (size_t i = 0; i < r->n_meta; i++)
		if (rec_set_meta(w, r->meta[i].key, r->meta[i].text, err))
			return rec_close(w, &ignored), -1;
	for (size_t i = 0; i < r->n; i++)
		if (rec_append(w, &r->samples[i], err))
			return rec_close(w, &ignored), -1;
	return rec_close(w, err);
}
