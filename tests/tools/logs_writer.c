/* logs_writer.c - samples as xentop, vmstat and iostat text; see logs_writer.h. */
#include "tools/logs_writer.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/model.h"

#define SECTOR         512u
#define XVDA           51712u /* xenstore devid of xvda */
#define DEV_MAJOR(dev) ((dev) >> 20)
#define DEV_MINOR(dev) ((dev)&0xfffffu)

static uint64_t since(uint64_t cur, uint64_t prev)
{
	return cur > prev ? cur - prev : 0;
}

/* A rate as the tools print it: whole when it is whole (vmstat), else 2 decimals. */
static void put_rate(FILE *f, const char *fmt_whole, const char *fmt_frac, double v)
{
	fprintf(f, v == floor(v) ? fmt_whole : fmt_frac, v);
}

/* ---- xentop -b -x ---- */

static const struct model_domain *domain_of(const struct model_interval *m, uint32_t domid)
{
	for (size_t i = 0; i < m->n_domains; i++)
		if (m->domains[i].domid == domid)
			return &m->domains[i];
	return NULL;
}

/* The device blkback would serve the domain from: its first backend device. */
static uint32_t backend_dev(const struct model_domain *d)
{
	for (size_t i = 0; d && i < d->n_layers; i++)
		if (d->layers[i].role == ROLE_BACKEND && !d->layers[i].is_file)
			return d->layers[i].dev;
	return 0;
}

static void put_vbd_line(FILE *f, uint32_t devid, uint32_t dev, uint64_t oo, uint64_t rd,
                         uint64_t wr, uint64_t rd_bytes, uint64_t wr_bytes)
{
	fprintf(f,
	        "VBD BlkBack %5" PRIu32 " [%2" PRIx32 ":%2" PRIx32 "]  OO: %8" PRIu64
	        "   RD: %8" PRIu64 "   WR: %8" PRIu64 "  RSECT: %10" PRIu64 "  WSECT: %10" PRIu64
	        "\n",
	        devid, DEV_MAJOR(dev), DEV_MINOR(dev), oo, rd, wr, rd_bytes / SECTOR,
	        wr_bytes / SECTOR);
}

/* The -x lines of a domain: blkback's own vbd counters when the recording has them,
 * else one xvda line holding xiotop's guest totals. Writes them when f; the count. */
static size_t vbd_lines(FILE *f, const struct xio_sample *cur, uint32_t domid,
                        const struct model_domain *d)
{
	size_t n = 0;
	if (cur->has_vbd_stats) {
		for (size_t i = 0; i < cur->n_vbd_stats; i++) {
			const struct xio_vbd_stat *v = &cur->vbd_stats[i];
			if (v->domid != domid)
				continue;
			if (f)
				put_vbd_line(f, v->devid, v->backend_dev, v->oo_req, v->rd_req,
				             v->wr_req, v->rd_bytes, v->wr_bytes);
			n++;
		}
		return n;
	}
	const struct xio_domain *info = sample_domain(cur, domid);
	bool has_vbd = (info && info->kind[0]) || (d && d->n_layers);
	if (!has_vbd || domid == 0)
		return 0;
	if (f)
		put_vbd_line(f, XVDA, backend_dev(d), 0, d ? d->io.guest_rd_ios : 0,
		             d ? d->io.guest_wr_ios : 0, d ? d->io.guest_rd_bytes : 0,
		             d ? d->io.guest_wr_bytes : 0);
	return 1;
}

static void put_domain(FILE *f, const struct xio_sample *cur, const struct xio_domain *info,
                       const struct model_domain *d)
{
	uint32_t domid = info->domid;
	const struct xio_dom_counters *c = sample_counters(cur, domid); /* cumulative vCPU time */
	uint64_t cpu_ns =
	    domid ? (c && c->guest_cpu_ns > 0 ? (uint64_t)c->guest_cpu_ns : 0) : cur->host_busy_ns;
	fprintf(f,
	        "%10s %s %10" PRIu64 " %6.1f %10" PRIu64 " %4zu %8d %8" PRIu64 " %8" PRIu64
	        " %10" PRIu64 " %10" PRIu64 "\n",
	        info->name, domid ? "--b---" : "-----r", cpu_ns / 1000000000u, 0.0,
	        info->mem_bytes / 1024, vbd_lines(NULL, cur, domid, d), 0,
	        d ? d->io.guest_rd_ios : 0, d ? d->io.guest_wr_ios : 0,
	        d ? d->io.guest_rd_bytes / SECTOR : 0, d ? d->io.guest_wr_bytes / SECTOR : 0);
	vbd_lines(f, cur, domid, d);
}

int logs_xentop_block(FILE *f, const struct xio_sample *cur)
{
	struct model_interval m; /* since the counters started: the cumulative figures */
	if (model_compute(NULL, cur, &m))
		return -1;
	fputs("      NAME  STATE   CPU(sec) CPU(%)     MEM(k) VBDS   VBD_OO   VBD_RD   VBD_WR  "
	      "VBD_RSECT  VBD_WSECT\n",
	      f);
	/* xentop lists Domain-0 first, always */
	struct xio_domain dom0 = {.domid = 0};
	snprintf(dom0.name, sizeof(dom0.name), "Domain-0");
	const struct xio_domain *first = sample_domain(cur, 0);
	put_domain(f, cur, first ? first : &dom0, domain_of(&m, 0));
	for (size_t i = 0; i < cur->n_domains; i++)
		if (cur->domains[i].domid != 0)
			put_domain(f, cur, &cur->domains[i], domain_of(&m, cur->domains[i].domid));
	model_free(&m);
	return 0;
}

/* ---- vmstat N ---- */

void logs_vmstat_header(FILE *f)
{
	fputs("procs -----------memory---------- ---swap-- -----io---- -system-- "
	      "------cpu-----\n r  b   swpd   free   buff  cache   si   so    bi    bo   in   "
	      "cs us sy id wa st\n",
	      f);
}

/* Over what the line is an average: the interval, or (first line) since the counters
 * started, as vmstat's first line is since boot. */
static double line_seconds(const struct xio_sample *prev, const struct xio_sample *cur,
                           const struct logs_shape *shape)
{
	if (prev)
		return shape->interval_s;
	return cur->monotonic_ns ? (double)cur->monotonic_ns / 1e9 : 1.0;
}

void logs_vmstat_row(FILE *f, const struct xio_sample *prev, const struct xio_sample *cur,
                     const struct logs_shape *shape)
{
	double secs = line_seconds(prev, cur, shape);
	double bi = (double)since(cur->vmstat_pgpgin_kb, prev ? prev->vmstat_pgpgin_kb : 0);
	double bo = (double)since(cur->vmstat_pgpgout_kb, prev ? prev->vmstat_pgpgout_kb : 0);
	double busy = (double)since(cur->host_busy_ns, prev ? prev->host_busy_ns : 0);
	/* the host's busy share, all in "us": the importer adds us + sy + st */
	long us = 0;
	if (shape->cpus > 0)
		us = lround(fmin(100.0, busy / (secs * 1e9 * (double)shape->cpus) * 100.0));
	fputs(" 0  0      0      0      0      0    0    0 ", f);
	put_rate(f, "%5.0f ", "%5.2f ", bi / secs);
	put_rate(f, "%5.0f ", "%5.2f ", bo / secs);
	fprintf(f, "   0    0 %2ld  0 %2ld  0  0\n", us, 100 - us);
}

/* ---- iostat -dx N ---- */

void logs_iostat_banner(FILE *f, const struct logs_shape *shape)
{
	fputs("Linux 6.1.0 (dom0) \t01/01/26 \t_x86_64_", f);
	if (shape->cpus > 0)
		fprintf(f, "\t(%ld CPU)", shape->cpus);
	fputs("\n\n", f);
}

static const struct xio_disk *disk_of(const struct xio_sample *s, uint32_t dev)
{
	for (size_t i = 0; s && i < s->n_disks; i++)
		if (s->disks[i].dev == dev)
			return &s->disks[i];
	return NULL;
}

void logs_iostat_report(FILE *f, const struct xio_sample *prev, const struct xio_sample *cur,
                        const struct logs_shape *shape)
{
	static const struct xio_disk none;
	double secs = line_seconds(prev, cur, shape);
	fputs("Device            r/s     rkB/s     w/s     wkB/s  %util\n", f);
	for (size_t i = 0; i < cur->n_disks; i++) {
		const struct xio_disk *d = &cur->disks[i], *p = disk_of(prev, d->dev);
		if (!p)
			p = &none; /* new in cur (or the first report): counts from 0 */
		fprintf(f, "%-12s %8.2f %9.2f %7.2f %9.2f %6.2f\n", d->name,
		        (double)since(d->rd_ios, p->rd_ios) / secs,
		        (double)since(d->rd_bytes, p->rd_bytes) / 1024 / secs,
		        (double)since(d->wr_ios, p->wr_ios) / secs,
		        (double)since(d->wr_bytes, p->wr_bytes) / 1024 / secs, 0.0);
	}
	fputs("\n", f);
}
