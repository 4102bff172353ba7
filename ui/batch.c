/* batch.c - text, CSV and JSON-lines output of one interval; see batch.h. */
#include "ui/batch.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/sanitize.h"

int batch_parse_format(const char *s, enum batch_format *out)
{
	if (!strcmp(s, "text"))
		*out = BATCH_TEXT;
	else if (!strcmp(s, "csv"))
		*out = BATCH_CSV;
	else if (!strcmp(s, "json"))
		*out = BATCH_JSON;
	else
		return -1;
	return 0;
}

static void iso_time(char *buf, size_t len, int64_t realtime_ns)
{
	time_t sec = (time_t)(realtime_ns / 1000000000);
	struct tm tm;
	gmtime_r(&sec, &tm);
	size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03dZ", (int)(realtime_ns / 1000000 % 1000));
}

static const char *domain_name(const struct model_domain *d)
{
	return d->info && d->info->name[0] ? d->info->name : NULL;
}

static double mb_per_s(uint64_t bytes, double secs)
{
	return secs > 0 ? (double)bytes / 1e6 / secs : 0.0;
}

/* A counter that was not collected prints null, never a misleading 0. */
static void put_opt_u64(FILE *out, const char *key, bool known, uint64_t v)
{
	fputs(key, out);
	if (known)
		fprintf(out, "%" PRIu64, v);
	else
		fputs("null", out);
}

static void put_cpu(FILE *out, const struct model_interval *m, const struct model_domain *d)
{
	static const char *const role_keys[XS_CPU_ROLES] = {"backend", "device_model", "loop",
	                                                    "writeback"};
	put_opt_u64(out, ",\"dom0_cpu_ns\":", m->has_cpu, d->cpu_ns);
	fputs(",\"dom0_cpu_ns_by_role\":", out);
	if (!m->has_cpu) {
		fputs("null", out);
	} else {
		for (int r = 0; r < XS_CPU_ROLES; r++)
			fprintf(out, "%s\"%s\":%" PRIu64, r ? "," : "{", role_keys[r],
			        d->cpu_ns_by_role[r]);
		fputc('}', out);
	}
	put_opt_u64(out, ",\"guest_cpu_ns\":", d->guest_cpu_ns >= 0, (uint64_t)d->guest_cpu_ns);
	put_opt_u64(out, ",\"dirty_backlog_bytes\":", m->has_dirty, d->dirty_backlog_bytes);
	put_opt_u64(out, ",\"dirtied_bytes\":", m->has_dirty, d->dirtied_bytes);
	put_opt_u64(out, ",\"written_back_bytes\":", m->has_dirty, d->written_back_bytes);
}

/* blkback's own per-vbd counts beside xiotop's (only on a Xen dom0: has_vbd_stats). */
static void put_vbd_stats(FILE *out, const struct model_domain *d)
{
	fputs(",\"vbd_stats\":[", out);
	for (size_t j = 0; j < d->n_vbds; j++) {
		const struct model_vbd *v = &d->vbds[j];
		fprintf(out,
		        "%s{\"devid\":%u,\"rd_bytes\":%" PRIu64 ",\"wr_bytes\":%" PRIu64
		        ",\"rd_req\":%" PRIu64 ",\"wr_req\":%" PRIu64,
		        j ? "," : "", v->devid, v->rd_bytes, v->wr_bytes, v->rd_req, v->wr_req);
		put_opt_u64(out, ",\"xiotop_rd_bytes\":", v->xiotop_known, v->xiotop_rd_bytes);
		put_opt_u64(out, ",\"xiotop_wr_bytes\":", v->xiotop_known, v->xiotop_wr_bytes);
		fprintf(out, ",\"disagree\":%s}", v->disagree ? "true" : "false");
	}
	fputc(']', out);
}

static void print_json(FILE *out, const struct model_interval *m)
{
	char ts[40];
	iso_time(ts, sizeof(ts), m->realtime_ns);
	fprintf(out, "{\"time\":\"%s\",\"interval_s\":%.3f,\"host\":{", ts, m->interval_s);
	fprintf(out,
	        "\"vmstat_pgpgout_bytes\":%" PRIu64 ",\"vmstat_pgpgin_bytes\":%" PRIu64
	        ",\"disks\":[",
	        m->pgpgout_bytes, m->pgpgin_bytes);
	for (size_t i = 0; i < m->n_disks; i++) {
		fprintf(out, "%s{\"dev\":", i ? "," : "");
		json_put_string(out, m->disks[i].disk->name);
		fprintf(out, ",\"rd_bytes\":%" PRIu64 ",\"wr_bytes\":%" PRIu64 "}",
		        m->disks[i].rd_bytes, m->disks[i].wr_bytes);
	}
	fprintf(out, "]");
	put_opt_u64(out, ",\"dom0_cpu_busy_ns\":", m->has_cpu, m->host_busy_ns);
	fprintf(out, "},\"unattributed\":{\"rd_bytes\":%" PRIu64 ",\"wr_bytes\":%" PRIu64 "}",
	        m->unattr_rd_bytes, m->unattr_wr_bytes);
	put_opt_u64(out, ",\"unattributed_cpu_ns\":", m->has_cpu, m->cpu_unattributed_ns);
	fprintf(out, ",\"lost_events\":%" PRIu64 ",\"domains\":[", m->lost_events);
	for (size_t i = 0; i < m->n_domains; i++) {
		const struct model_domain *d = &m->domains[i];
		fprintf(out, "%s{\"domid\":%u,\"name\":", i ? "," : "", d->domid);
		json_put_string(out, domain_name(d));
		fprintf(out, ",\"kind\":");
		json_put_string(out, d->info && d->info->kind[0] ? d->info->kind : NULL);
		fprintf(out, ",\"missing\":%s", d->info && d->info->missing ? "true" : "false");
		fprintf(out,
		        ",\"guest_rd_bytes\":%" PRIu64 ",\"guest_wr_bytes\":%" PRIu64
		        ",\"guest_rd_ios\":%" PRIu64 ",\"guest_wr_ios\":%" PRIu64
		        ",\"phys_rd_bytes\":%" PRIu64 ",\"phys_wr_bytes\":%" PRIu64
		        ",\"double_counted_bytes\":%" PRIu64,
		        d->guest_rd_bytes, d->guest_wr_bytes, d->guest_rd_ios, d->guest_wr_ios,
		        d->phys_rd_bytes, d->phys_wr_bytes, d->double_counted_bytes);
		put_cpu(out, m, d);
		fprintf(out, ",\"layers\":[");
		for (size_t j = 0; j < d->n_layers; j++) {
			const struct model_layer *l = &d->layers[j];
			fprintf(out, "%s{", j ? "," : "");
			if (l->is_file) {
				fprintf(out, "\"file\":");
				json_put_string(out,
				                d->info && d->info->file[0] ? d->info->file : NULL);
			} else {
				fprintf(out, "\"dev\":");
				json_put_string(out, l->name);
			}
			fprintf(out,
			        ",\"role\":\"%s\",\"leaf\":%s,\"rd_bytes\":%" PRIu64
			        ",\"wr_bytes\":%" PRIu64 "}",
			        model_role_name(l->role), l->is_leaf ? "true" : "false",
			        l->rd_bytes, l->wr_bytes);
		}
		fprintf(out, "]");
		if (m->has_vbd_stats)
			put_vbd_stats(out, d);
		fprintf(out, "}");
	}
	fprintf(out, "]}\n");
}

static void print_csv(FILE *out, const struct model_interval *m, unsigned long iteration)
{
	char ts[40];
	if (iteration == 0)
		fprintf(out,
		        "time,interval_s,domid,name,guest_rd_bytes,guest_wr_bytes,guest_rd_ios,"
		        "guest_wr_ios,phys_rd_bytes,phys_wr_bytes,double_counted_bytes,"
		        "vmstat_pgpgout_bytes,unattributed_wr_bytes,lost_events\n");
	iso_time(ts, sizeof(ts), m->realtime_ns);
	for (size_t i = 0; i < m->n_domains; i++) {
		const struct model_domain *d = &m->domains[i];
		fprintf(out, "%s,%.3f,%u,", ts, m->interval_s, d->domid);
		csv_put_field(out, domain_name(d));
		fprintf(out,
		        ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		        ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
		        d->guest_rd_bytes, d->guest_wr_bytes, d->guest_rd_ios, d->guest_wr_ios,
		        d->phys_rd_bytes, d->phys_wr_bytes, d->double_counted_bytes,
		        m->pgpgout_bytes, m->unattr_wr_bytes, m->lost_events);
	}
}

static void print_text(FILE *out, const struct model_interval *m, const struct batch_opts *o)
{
	char ts[40];
	double s = m->interval_s;
	uint64_t phys_rd = 0, phys_wr = 0, dbl = 0;
	for (size_t i = 0; i < m->n_disks; i++) {
		phys_rd += m->disks[i].rd_bytes;
		phys_wr += m->disks[i].wr_bytes;
	}
	for (size_t i = 0; i < m->n_domains; i++)
		dbl += m->domains[i].double_counted_bytes;
	iso_time(ts, sizeof(ts), m->realtime_ns);
	/* which hooks are active is said once on stderr at start: this line stays < 80 */
	fprintf(out, "xiotop %.19s  %zu domains  %.2fs  lost %" PRIu64 "\n", ts, m->n_domains, s,
	        m->lost_events);
	fprintf(out,
	        "disks rd %.1f wr %.1f MB/s  vmstat bo %.1f MB/s  double %.1f MB/s  unattr %.1f "
	        "MB/s\n",
	        mb_per_s(phys_rd, s), mb_per_s(phys_wr, s), mb_per_s(m->pgpgout_bytes, s),
	        mb_per_s(dbl, s), mb_per_s(m->unattr_wr_bytes, s));
	fprintf(out, "%-12s %5s %8s %8s %6s %6s %8s %8s %5s %5s\n", "NAME", "DOMID", "GRD_MB/s",
	        "GWR_MB/s", "R_IOPS", "W_IOPS", "PWR_MB/s", "DBL_MB/s", "AMPL", "CPU%");
	for (size_t i = 0; i < m->n_domains; i++) {
		const struct model_domain *d = &m->domains[i];
		char name[256];
		const char *raw = domain_name(d);
		sanitize_text(raw ? raw : "?", name, o->full_names ? sizeof(name) : 13);
		char ampl[16] = "-";
		if (d->guest_wr_bytes)
			snprintf(ampl, sizeof(ampl), "%.2f",
			         (double)d->phys_wr_bytes / (double)d->guest_wr_bytes);
		char cpu[16] = "-";
		if (m->has_cpu && s > 0)
			snprintf(cpu, sizeof(cpu), "%.1f", (double)d->cpu_ns / 1e7 / s);
		fprintf(out, "%-12s %5u %8.1f %8.1f %6.0f %6.0f %8.1f %8.1f %5s %5s%s\n", name,
		        d->domid, mb_per_s(d->guest_rd_bytes, s), mb_per_s(d->guest_wr_bytes, s),
		        s > 0 ? (double)d->guest_rd_ios / s : 0,
		        s > 0 ? (double)d->guest_wr_ios / s : 0, mb_per_s(d->phys_wr_bytes, s),
		        mb_per_s(d->double_counted_bytes, s), ampl, cpu,
		        d->info && d->info->missing ? " !missing" : "");
	}
	fputc('\n', out);
}

void batch_print(FILE *out, const struct model_interval *m, const struct batch_opts *o,
                 unsigned long iteration)
{
	switch (o->format) {
	case BATCH_JSON:
		print_json(out, m);
		break;
	case BATCH_CSV:
		print_csv(out, m, iteration);
		break;
	default:
		print_text(out, m, o);
		break;
	}
	fflush(out);
}

static int batch_sink_interval(void *ctx, struct model_interval *m, unsigned long index)
{
	struct batch_sink *b = ctx;
	batch_print(b->out, m, &b->opts, index);
	if (fflush(b->out) == 0 && !ferror(b->out))
		return LOOP_GO_ON;
	if (errno == EPIPE)
		return LOOP_DONE;
	fprintf(stderr, "xiotop: cannot write the output: %s\n", strerror(errno));
	return 1;
}

struct interval_sink batch_sink(struct batch_sink *b)
{
	return (struct interval_sink){.ctx = b, .interval = batch_sink_interval};
}
