/* fuzz_rec.h - what the two recording harnesses share: a small valid recording made by
 * the recorder, and everything a command does with a file it is given (open, read every
 * sample, resolve windows, replay timing, print as text, CSV and JSON), with the checks:
 * no sanitizer report, messages and output free of control and bidi bytes, and a
 * replay wait never above the cap of replay.h whatever the times in the file. */
#ifndef XIOTOP_FUZZ_REC_H
#define XIOTOP_FUZZ_REC_H

#include <sqlite3.h>

#include "fuzz/fuzz_util.h"
#include "record/rec_stream.h"
#include "record/record.h"
#include "record/replay.h"
#include "ui/batch.h"

#define FUZZ_REC_MAX_SAMPLES 48 /* read at most so many: time goes to new paths */

static void fuzz_rec_message(const struct xerr *err)
{
	fuzz_check_output("rec_error", err->msg, strnlen(err->msg, sizeof(err->msg)), false);
}

/* A recording of 3 domains over 4 samples, names with escapes, and two marks. */
static inline void fuzz_make_recording(const char *path)
{
	struct rec_host_facts facts;
	memset(&facts, 0, sizeof(facts));
	struct xerr err;
	unlink(path);
	struct rec_writer *w = rec_create(path, &facts, &err);
	if (!w)
		abort();
	struct xio_sample s;
	memset(&s, 0, sizeof(s));
	snprintf(s.hooks, sizeof(s.hooks), "block_bio_queue sched_switch");
	s.has_cpu = s.has_dirty = s.domains_live = s.has_vbd_stats = true;
	for (uint32_t d = 1; d <= 3; d++) {
		struct xio_domain dom = {.domid = d, .generation = 1};
		snprintf(dom.name, sizeof(dom.name), d == 2 ? "ev\x1b[2Jil\\x1b" : "guest-%u", d);
		snprintf(dom.kind, sizeof(dom.kind), "vbd");
		snprintf(dom.file, sizeof(dom.file), "/img/g%u\xe2\x80\xae.img", d);
		sample_add_domain(&s, &dom);
		struct xio_dev dev = {.dev = (7u << 20) | d};
		snprintf(dev.name, sizeof(dev.name), "loop%u", d);
		sample_add_dev(&s, &dev);
		struct xio_layer layer = {.domid = d, .dev = (7u << 20) | d, .via = 1};
		sample_add_layer(&s, &layer);
		struct xio_dom_counters c = {.domid = d};
		sample_add_counters(&s, &c);
		struct xio_vbd_stat v = {.domid = d, .devid = 51712, .backend_dev = (7u << 20) | d};
		sample_add_vbd_stat(&s, &v);
	}
	struct xio_disk disk = {.dev = 8u << 20};
	snprintf(disk.name, sizeof(disk.name), "sda");
	sample_add_disk(&s, &disk);
	for (int i = 0; i < 4; i++) {
		s.realtime_ns = 1700000000000000000ll + (int64_t)i * 1000000000;
		s.monotonic_ns = 5000000000000ull + (uint64_t)i * 1000000000;
		for (size_t l = 0; l < s.n_layers; l++)
			s.layers[l].io.wr_bytes += 1 << 20;
		if (rec_append(w, &s, &err))
			abort();
		if (i == 1 && rec_add_mark_from(w, "start\x9b", s.realtime_ns, "api", -1, &err))
			abort();
	}
	if (rec_add_mark_from(w, "end", s.realtime_ns, "api", -1, &err) || rec_close(w, &err))
		abort();
	sample_free(&s);
	/* 512-byte pages: a file of a few KiB, where most flips hit something that matters */
	sqlite3 *db;
	if (sqlite3_open(path, &db) != SQLITE_OK ||
	    sqlite3_exec(db, "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM", NULL, NULL,
	                 NULL) != SQLITE_OK)
		abort();
	sqlite3_close(db);
}

static int fuzz_rec_sink_none(void *ctx, struct model_interval *m, unsigned long index)
{
	(void)ctx, (void)m, (void)index;
	return LOOP_GO_ON;
}

/* Every format of the window [first, last], as export prints it. */
static void fuzz_rec_print(struct rec_reader *r, size_t first, size_t last)
{
	for (int format = BATCH_TEXT; format <= BATCH_JSON; format++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);
		if (!out)
			abort();
		struct rec_stream stream = {.reader = r, .next = first, .last = last};
		struct sample_source src = rec_stream_source(&stream);
		struct batch_sink printer = {.out = out, .opts = {.format = format}};
		struct interval_sink sinks[2] = {batch_sink(&printer),
		                                 {.interval = fuzz_rec_sink_none}};
		struct loop l = {.src = &src, .sinks = sinks, .n_sinks = 2, .max_intervals = 8};
		interval_loop(&l);
		batch_sink_free(&printer);
		fclose(out);
		fuzz_check_output("batch output", buf, len, true);
		free(buf);
	}
}

/* Playing at every speed from the first sample to the end, with a clock that jumps
 * exactly to each due time: no wait above the cap. */
static void fuzz_rec_replay(const struct rec_reader *r, size_t count)
{
	size_t marks[1] = {0};
	struct replay_cursor c;
	replay_init(&c, rec_times(r), count, marks, 0);
	const int64_t cap = (int64_t)(REPLAY_MAX_GAP_NS / REPLAY_SPEED_MIN) + 1;
	static const double speeds[] = {REPLAY_SPEED_MIN, 1, REPLAY_SPEED_MAX};
	for (size_t k = 0; k < 3; k++) {
		int64_t now = 1000;
		replay_start(&c, now);
		replay_set_speed(&c, speeds[k], now);
		replay_toggle_play(&c, now);
		for (size_t step = 0; step < 2 * count && c.playing; step++) {
			int64_t wait = replay_wait_ns(&c, now);
			if (wait > cap)
				abort();
			now += wait > 0 ? wait : 1;
			replay_tick(&c, now);
		}
	}
}

static inline void fuzz_rec_check(const char *path)
{
	struct xerr err;
	struct rec_reader *r = rec_open(path, &err);
	if (!r) {
		fuzz_rec_message(&err);
		return;
	}
	size_t count = rec_count(r);
	if (count > FUZZ_REC_MAX_SAMPLES)
		count = FUZZ_REC_MAX_SAMPLES;
	for (size_t i = 0; i < count; i++) {
		struct xio_sample s;
		if (rec_read(r, i, &s, &err))
			fuzz_rec_message(&err);
		else
			sample_free(&s);
	}
	const char *label = rec_n_marks(r) ? rec_marks(r)[0].label : "x";
	const char *specs[][2] = {{NULL, NULL},
	                          {label, NULL},
	                          {"+0.5", label},
	                          {"+1e300", NULL},
	                          {"2300-01-01T00:00:00Z", NULL},
	                          {"1970-01-01T00:00:00Z", "+1"},
	                          {"typo", NULL}};
	for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		size_t first, last;
		if (rec_resolve_window(r, specs[k][0], specs[k][1], &first, &last, &err))
			fuzz_rec_message(&err);
		else if (k < 2 && last < FUZZ_REC_MAX_SAMPLES)
			fuzz_rec_print(r, first, last);
	}
	if (count >= 2)
		fuzz_rec_replay(r, count);
	rec_reader_close(r);
}

#endif
