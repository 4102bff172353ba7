/* claim_command.c - what a pasted command line, or a tool's own banner, says about the run
 * after it (claim_lex.h): O_DIRECT, synchronous writes, a flush in the timing, request
 * size, queue depth, the test file's size; and which way a dd copied.
 *
 * A command line says each flag its tool has either way: dd without oflag=direct writes
 * through the page cache; iozone without -I too. dd: if= / of= give the direction
 * (if=/dev/zero of=FILE: write; of=/dev/null or NetBSD's of=/dev/zero: read), bs= (else
 * obs= for a write, ibs= for a read; dd's own 512 without any) the request size, with
 * GNU's and BSD's suffixes (K, M, G 1024-based, kB, MB, GB 1000-based, b 512, w 2, c 1);
 * oflag=direct / iflag=direct, oflag=sync|dsync, conv=fsync|fdatasync. iozone: -I, -o,
 * -e, -r (KiB unless suffixed), -s, -H (its queue depth), its options clustered as getopt
 * takes them ("-KoMe -s900m"). bonnie, bonnie++: -s MiB[:chunk], -b (an fsync after each
 * write), -D (O_DIRECT), -c (concurrency). fio: --direct=, --sync=, --end_fsync=,
 * --fsync_on_close=, --bs=, --iodepth=, --ioengine=, --size= (a job file says nothing here).
 */
#include "explain/claims/claim_lex.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct args {
	const char *w[64];
	size_t n[64];
	unsigned count;
};

/* The command's words after the tool's, up to the end of its command (";", "|", "&", ")"). */
static void split_args(const char *cmd, size_t len, struct args *a)
{
	size_t i = 0;
	a->count = 0;
	while (i < len && cmd[i] != ' ' && cmd[i] != '\t') /* the tool's word */
		i++;
	while (i < len && a->count < 64) {
		while (i < len && (cmd[i] == ' ' || cmd[i] == '\t' || cmd[i] == '\r'))
			i++;
		if (i >= len || cmd[i] == ';' || cmd[i] == '|' || cmd[i] == '&' || cmd[i] == ')')
			return;
		size_t start = i;
		while (i < len && cmd[i] != ' ' && cmd[i] != '\t' && cmd[i] != ';' &&
		       cmd[i] != '|' && cmd[i] != '&' && cmd[i] != ')' && cmd[i] != '\r')
			i++;
		a->w[a->count] = cmd + start;
		a->n[a->count++] = i - start;
	}
}

static bool eq(const char *w, size_t n, const char *lit)
{
	return n == strlen(lit) && !memcmp(w, lit, n);
}

/* The value of "key=value" (fio also "--key=value", "-key=value"): NULL when w is not it. */
static const char *value_of(const char *w, size_t n, const char *key, size_t *vlen)
{
	while (n && *w == '-') {
		w++;
		n--;
	}
	size_t k = strlen(key);
	if (n <= k || memcmp(w, key, k) || w[k] != '=')
		return NULL;
	*vlen = n - k - 1;
	return w + k + 1;
}

/* Whether the comma-separated list holds `item`. */
static bool has_item(const char *v, size_t n, const char *item)
{
	size_t k = strlen(item);
	for (size_t i = 0; i + k <= n; i++)
		if ((i == 0 || v[i - 1] == ',') && !memcmp(v + i, item, k) &&
		    (i + k == n || v[i + k] == ','))
			return true;
	return false;
}

/* "1024k", "1M", "4096", "1m", "64KiB", "1MB": bytes (unit_one: the unit of a bare
 * number); 0 when not a size. */
static uint64_t size_of(const char *v, size_t n, uint64_t unit_one)
{
	struct text_cur c = {v, v + n};
	uint64_t x;
	if (!text_u64(&c, &x))
		return 0;
	size_t ulen = (size_t)(c.end - c.p);
	const char *u = c.p;
	uint64_t f = unit_one;
	if (ulen == 1 && (*u == 'c' || *u == 'w' || *u == 'b'))
		f = *u == 'c' ? 1 : *u == 'w' ? 2 : 512;
	else if (ulen == 1) {
		char up =
		    *u >= 'a' && *u <= 'z' ? (char)(*u - 32) : *u; /* BSD's "1m", iozone's "900m" */
		f = (uint64_t)claim_unit_factor(&up, 1, true);
	} else if (ulen)
		f = (uint64_t)claim_unit_factor(u, ulen, true);
	if (!f || x > UINT64_MAX / f)
		return 0;
	return x * f;
}

static void dd_said(const struct args *a, struct claim_said *said, unsigned *dir)
{
	const char *in = NULL, *of = NULL, *v;
	size_t inlen = 0, oflen = 0, vl;
	uint64_t bs = 0, ibs = 0, obs = 0;
	bool odirect = false, idirect = false, sync = false, flush = false;
	for (unsigned i = 0; i < a->count; i++) {
		const char *w = a->w[i];
		size_t n = a->n[i];
		if ((v = value_of(w, n, "if", &vl)))
			in = v, inlen = vl;
		else if ((v = value_of(w, n, "of", &vl)))
			of = v, oflen = vl;
		else if ((v = value_of(w, n, "bs", &vl)))
			bs = size_of(v, vl, 1);
		else if ((v = value_of(w, n, "ibs", &vl)))
			ibs = size_of(v, vl, 1);
		else if ((v = value_of(w, n, "obs", &vl)))
			obs = size_of(v, vl, 1);
		else if ((v = value_of(w, n, "oflag", &vl))) {
			odirect |= has_item(v, vl, "direct");
			sync |= has_item(v, vl, "sync") || has_item(v, vl, "dsync");
		} else if ((v = value_of(w, n, "iflag", &vl)))
			idirect |= has_item(v, vl, "direct");
		else if ((v = value_of(w, n, "conv", &vl)))
			flush |= has_item(v, vl, "fsync") || has_item(v, vl, "fdatasync");
	}
	bool of_sink = of && (eq(of, oflen, "/dev/null") || eq(of, oflen, "/dev/zero"));
	bool in_source = in && (eq(in, inlen, "/dev/zero") || eq(in, inlen, "/dev/urandom") ||
	                        eq(in, inlen, "/dev/random"));
	*dir = of_sink && in && !in_source   ? CLAIM_DIR_READ
	       : in_source && of && !of_sink ? CLAIM_DIR_WRITE
	                                     : 0;
	uint64_t block = bs ? bs : *dir == CLAIM_DIR_WRITE ? obs : *dir == CLAIM_DIR_READ ? ibs : 0;
	if (block)
		claim_say(&said->block_bytes, CLAIM_FROM_COMMAND, block);
	else if (!ibs && !obs)
		claim_say(&said->block_bytes, CLAIM_FROM_TOOL, 512); /* dd's default */
	bool direct = *dir == CLAIM_DIR_WRITE  ? odirect
	              : *dir == CLAIM_DIR_READ ? idirect
	                                       : odirect || idirect;
	claim_say(&said->direct, CLAIM_FROM_COMMAND, direct);
	claim_say(&said->sync, CLAIM_FROM_COMMAND, sync);
	claim_say(&said->flush_end, CLAIM_FROM_COMMAND, flush);
	claim_say(&said->queue_depth, CLAIM_FROM_TOOL, 1);
}

/* iozone's options that take a value (getopt's "x:"); any other letter is a flag. */
static bool iozone_takes_value(char c)
{
	return c && strchr("bdfFgHijJklLnPqrsStuUVXyY", c) != NULL;
}

static void iozone_option(char opt, const char *v, size_t vl, enum claim_from from,
                          struct claim_said *said)
{
	uint64_t x;
	if (opt == 'I')
		claim_say(&said->direct, from, 1);
	else if (opt == 'o')
		claim_say(&said->sync, from, 1);
	else if (opt == 'e')
		claim_say(&said->flush_end, from, 1);
	else if (opt == 'r' && v && (x = size_of(v, vl, 1024)))
		claim_say(&said->block_bytes, from, x);
	else if (opt == 's' && v && (x = size_of(v, vl, 1024)))
		claim_say(&said->file_bytes, from, x);
	else if (opt == 'H' && v && (x = size_of(v, vl, 1)) && x < 100000)
		claim_say(&said->queue_depth, from, x);
}

static void iozone_said(const struct args *a, enum claim_from from, struct claim_said *said)
{
	claim_say(&said->direct, from, 0);
	claim_say(&said->sync, from, 0);
	claim_say(&said->flush_end, from, 0);
	claim_say(&said->queue_depth, CLAIM_FROM_TOOL, 1);
	for (unsigned i = 0; i < a->count; i++) {
		const char *w = a->w[i];
		size_t n = a->n[i];
		if (n < 2 || w[0] != '-' || w[1] == '+')
			continue; /* an operand, or a "-+x" cluster option */
		for (size_t k = 1; k < n; k++) {
			if (!iozone_takes_value(w[k])) {
				iozone_option(w[k], NULL, 0, from, said);
				continue;
			}
			if (k + 1 < n) /* "-s900m" */
				iozone_option(w[k], w + k + 1, n - k - 1, from, said);
			else if (i + 1 < a->count) /* "-s 900m" */
				iozone_option(w[k], a->w[i + 1], a->n[i + 1], from, said), i++;
			break;
		}
	}
}

static void bonnie_said(const struct args *a, struct claim_said *said)
{
	claim_say(&said->direct, CLAIM_FROM_COMMAND, 0);
	claim_say(&said->sync, CLAIM_FROM_COMMAND, 0);
	for (unsigned i = 0; i < a->count; i++) {
		const char *w = a->w[i], *v = i + 1 < a->count ? a->w[i + 1] : NULL;
		size_t vl = i + 1 < a->count ? a->n[i + 1] : 0;
		uint64_t x;
		if (eq(w, a->n[i], "-D") || eq(w, a->n[i], "-o_direct"))
			claim_say(&said->direct, CLAIM_FROM_COMMAND, 1);
		else if (eq(w, a->n[i], "-b") || eq(w, a->n[i], "-y"))
			claim_say(&said->sync, CLAIM_FROM_COMMAND, 1);
		else if (eq(w, a->n[i], "-c") && v && (x = size_of(v, vl, 1)) && x < 100000)
			claim_say(&said->queue_depth, CLAIM_FROM_COMMAND, x);
		else if (eq(w, a->n[i], "-s") && v) {
			const char *colon = memchr(v, ':', vl);
			size_t sl = colon ? (size_t)(colon - v) : vl;
			if ((x = size_of(v, sl, 1u << 20)))
				claim_say(&said->file_bytes, CLAIM_FROM_COMMAND, x);
			if (colon && (x = size_of(colon + 1, vl - sl - 1, 1)))
				claim_say(&said->block_bytes, CLAIM_FROM_COMMAND, x);
		}
	}
}

static void fio_said(const struct args *a, struct claim_said *said)
{
	static const struct {
		const char *key;
		size_t field;
	} flags[] = {{"direct", offsetof(struct claim_said, direct)},
	             {"sync", offsetof(struct claim_said, sync)},
	             {"end_fsync", offsetof(struct claim_said, flush_end)},
	             {"fsync_on_close", offsetof(struct claim_said, flush_end)}};
	for (unsigned i = 0; i < a->count; i++) {
		const char *v;
		size_t vl;
		uint64_t x;
		for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); k++)
			if ((v = value_of(a->w[i], a->n[i], flags[k].key, &vl)) && vl == 1 &&
			    (v[0] == '0' || v[0] == '1'))
				claim_say((struct claim_setting *)((char *)said + flags[k].field),
				          CLAIM_FROM_COMMAND, v[0] == '1');
		if ((v = value_of(a->w[i], a->n[i], "bs", &vl)) && (x = size_of(v, vl, 1)))
			claim_say(&said->block_bytes, CLAIM_FROM_COMMAND, x);
		else if ((v = value_of(a->w[i], a->n[i], "iodepth", &vl)) &&
		         (x = size_of(v, vl, 1)))
			claim_say(&said->queue_depth, CLAIM_FROM_COMMAND, x);
		else if ((v = value_of(a->w[i], a->n[i], "size", &vl)) && (x = size_of(v, vl, 1)))
			claim_say(&said->file_bytes, CLAIM_FROM_COMMAND, x);
		else if ((v = value_of(a->w[i], a->n[i], "ioengine", &vl)))
			snprintf(said->ioengine, sizeof(said->ioengine), "%.*s", (int)vl, v);
	}
}

void claim_command_said(enum claim_family f, const char *cmd, size_t len, enum claim_from from,
                        struct claim_said *said, unsigned *dd_direction)
{
	struct args a;
	split_args(cmd, len, &a);
	if (f == CLAIM_FAMILY_DD)
		dd_said(&a, said, dd_direction);
	else if (f == CLAIM_FAMILY_IOZONE)
		iozone_said(&a, from, said);
	else if (f == CLAIM_FAMILY_BONNIE)
		bonnie_said(&a, said);
	else if (f == CLAIM_FAMILY_FIO)
		fio_said(&a, said);
}

/* The line from its first non-blank byte starts with lit: *rest just past it. */
static bool starts(const struct claim_line *l, const char *lit, const char **rest)
{
	struct text_cur c = {l->s, l->s + l->len};
	text_skip_blanks(&c);
	if (!text_lit(&c, lit))
		return false;
	*rest = c.p;
	return true;
}

/* iozone's "Record Size 256 KB" / "File size set to 65536 KB": the size. */
static uint64_t banner_kib(const char *p, const char *end)
{
	struct text_cur c = {p, end};
	uint64_t x;
	if (!text_u64(&c, &x) || x > (1ull << 40) ||
	    (!text_lit(&c, " KB") && !text_lit(&c, " kB") && !text_lit(&c, " Kbytes")))
		return 0;
	return x << 10;
}

/* iozone's banner lines that say nothing read here (they are its, not the post's). */
static bool iozone_banner(const struct claim_line *l)
{
	static const char *const lines[] = {"Iozone: Performance Test",
	                                    "Version $Revision",
	                                    "Compiled for",
	                                    "Build:",
	                                    "Contributors:",
	                                    "Run began:",
	                                    "Auto Mode",
	                                    "Excel chart generation",
	                                    "Using minimum file size",
	                                    "Using maximum file size",
	                                    "Using Minimum Record Size",
	                                    "Using Maximum Record Size",
	                                    "Output is in",
	                                    "Time Resolution",
	                                    "Processor cache",
	                                    "File stride size",
	                                    "Include close in write timing",
	                                    "iozone test complete.",
	                                    "Excel output is below:"};
	const char *r;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (starts(l, lines[i], &r))
			return true;
	return false;
}

enum claim_family claim_banner(const struct claim_line *l, struct claim_said *said, bool *not_kib)
{
	const char *r, *end = l->s + l->len;
	struct text_cur c;
	uint64_t x;
	if (starts(l, "O_DIRECT feature enabled", &r))
		claim_say(&said->direct, CLAIM_FROM_OUTPUT, 1);
	else if (starts(l, "SYNC Mode", &r))
		claim_say(&said->sync, CLAIM_FROM_OUTPUT, 1);
	else if (starts(l, "Include fsync in write timing", &r))
		claim_say(&said->flush_end, CLAIM_FROM_OUTPUT, 1);
	else if (starts(l, "Record Size ", &r) && (x = banner_kib(r, end)))
		claim_say(&said->block_bytes, CLAIM_FROM_OUTPUT, x);
	else if (starts(l, "File size set to ", &r) && (x = banner_kib(r, end)))
		claim_say(&said->file_bytes, CLAIM_FROM_OUTPUT, x);
	else if (starts(l, "OPS Mode", &r) || starts(l, "Microseconds/op", &r) ||
	         starts(l, "Output is in operations per second", &r))
		*not_kib = true;
	else if (starts(l, "Command line used: ", &r)) {
		unsigned dir;
		claim_command_said(CLAIM_FAMILY_IOZONE, r, (size_t)(end - r), CLAIM_FROM_OUTPUT,
		                   said, &dir);
	} else if (starts(l, "File './Bonnie.", &r)) { /* classic bonnie: "..., size: N" */
		const char *at = memchr(r, ':', (size_t)(end - r));
		c = (struct text_cur){at ? at + 1 : end, end};
		text_skip_blanks(&c);
		if (!at || !text_u64(&c, &x) || !x)
			return CLAIM_FAMILY_NONE;
		claim_say(&said->file_bytes, CLAIM_FROM_OUTPUT, x);
		return CLAIM_FAMILY_BONNIE;
	} else if (starts(l, "Concurrency ", &r)) { /* bonnie++ 1.96's banner */
		c = (struct text_cur){r, end};
		text_skip_blanks(&c);
		if (!text_u64(&c, &x) || !x || x > 100000)
			return CLAIM_FAMILY_NONE;
		claim_say(&said->queue_depth, CLAIM_FROM_OUTPUT, x);
		return CLAIM_FAMILY_BONNIE;
	} else if (!iozone_banner(l))
		return CLAIM_FAMILY_NONE;
	return CLAIM_FAMILY_IOZONE;
}
