/* console_state.c - rows, sort, selection, filter, drill-down, marks; see console_state.h. */
#include "ui/console_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/grid.h"
#include "ui/rows.h"

void console_state_init(struct console_state *st, const struct console_state_opts *o)
{
	memset(st, 0, sizeof(*st));
	st->o = *o;
	st->delay_s = o->delay_s > 0 ? o->delay_s : 3.0;
	st->sort = FIELD_DOMID; /* stable rows, as xentop starts */
	st->page_rows = 10;
}

void console_state_free(struct console_state *st)
{
	free(st->rows);
	free(st->spare_rows);
	free(st->shown);
	free(st->marks);
	cpu_totals_free(&st->cpu_totals);
	memset(st, 0, sizeof(*st));
}

/* --- filter, sort, selection ------------------------------------------------------- */

static bool matches_filter(const struct console_state *st, const struct field_row *r)
{
	if (!st->filter[0])
		return true;
	char shown[512];
	grid_text(field_row_name(r), st->o.ascii_only, shown, sizeof(shown));
	return strcasestr(shown, st->filter) != NULL;
}

static int order_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct console_state *st = ctx;
	const struct field_row *a = *(const struct field_row *const *)pa;
	const struct field_row *b = *(const struct field_row *const *)pb;
	if (st->o.dom0_first && (a->kind == ROW_DOM0) != (b->kind == ROW_DOM0))
		return a->kind == ROW_DOM0 ? -1 : 1;
	const struct field *f = field_get(st->sort);
	int c = f->compare(a, b);
	if (f->descending != st->reverse)
		c = -c;
	if (c)
		return c;
	/* ties: by domid, so that equal rows keep still between intervals */
	if (a->domid != b->domid)
		return a->domid < b->domid ? -1 : 1;
	return (int)a->kind - (int)b->kind;
}

static bool is_selected(const struct console_state *st, const struct field_row *r)
{
	return st->have_sel && r->kind == st->sel_kind && r->domid == st->sel_domid;
}

static void select_pos(struct console_state *st, size_t pos)
{
	if (!st->n_shown) {
		st->have_sel = false;
		st->sel_pos = 0;
		return;
	}
	if (pos >= st->n_shown)
		pos = st->n_shown - 1;
	st->sel_pos = pos;
	st->sel_kind = st->shown[pos]->kind;
	st->sel_domid = st->shown[pos]->domid;
	st->have_sel = true;
}

/* Filter and sort again; the selection stays on its row if the row is still shown,
 * else on the same position. */
static void refresh(struct console_state *st)
{
	if (st->n_rows > st->cap_shown) {
		const struct field_row **p = realloc(st->shown, st->n_rows * sizeof(*p));
		if (!p) {
			st->n_shown = 0;
			snprintf(st->status, sizeof(st->status), "out of memory");
			return;
		}
		st->shown = p;
		st->cap_shown = st->n_rows;
	}
	st->n_shown = 0;
	for (size_t i = 0; i < st->n_rows; i++)
		if (matches_filter(st, &st->rows[i]))
			st->shown[st->n_shown++] = &st->rows[i];
	qsort_r(st->shown, st->n_shown, sizeof(*st->shown), order_cmp, st);
	for (size_t i = 0; i < st->n_shown; i++) {
		if (is_selected(st, st->shown[i])) {
			select_pos(st, i);
			return;
		}
	}
	select_pos(st, st->have_sel ? st->sel_pos : 0);
}

/* Rows of m, built into the spare rows: their count, or -1 (out of memory). */
static long spare_rows_of(struct console_state *st, const struct model_interval *m)
{
	size_t n;
	if (field_rows_build(m, &st->spare_rows, &st->cap_spare_rows, &n)) {
		snprintf(st->status, sizeof(st->status), "out of memory: display not updated");
		return -1;
	}
	return (long)n;
}

/* The n spare rows become the shown rows of m, with their CPU totals. */
static void show_spare_rows(struct console_state *st, const struct model_interval *m, size_t n)
{
	cpu_totals_fill(&st->cpu_totals, st->spare_rows, n);
	struct field_row *old = st->rows;
	size_t old_cap = st->cap_rows;
	st->rows = st->spare_rows;
	st->cap_rows = st->cap_spare_rows;
	st->n_rows = n;
	st->spare_rows = old;
	st->cap_spare_rows = old_cap;
	st->m = m;
	refresh(st);
}

bool console_state_interval(struct console_state *st, const struct model_interval *m)
{
	st->intervals++;
	long n = spare_rows_of(st, m);
	if (n < 0)
		return false;
	cpu_totals_add(&st->cpu_totals, st->spare_rows, (size_t)n);
	if (st->paused)
		return false;
	show_spare_rows(st, m, (size_t)n);
	return true;
}

bool console_state_show(struct console_state *st, const struct model_interval *m,
                        const struct model_interval *since)
{
	st->intervals++;
	if (since) {
		/* the totals are since's figures: rebuilt, never accumulated */
		long n = spare_rows_of(st, since);
		if (n < 0)
			return false;
		cpu_totals_clear(&st->cpu_totals);
		cpu_totals_add(&st->cpu_totals, st->spare_rows, (size_t)n);
	}
	long n = spare_rows_of(st, m);
	if (n < 0)
		return false;
	show_spare_rows(st, m, (size_t)n);
	return true;
}

void console_state_set_replay(struct console_state *st, const struct seek_pos *pos)
{
	st->replay = *pos;
}

const struct field_row *console_state_selected(const struct console_state *st)
{
	return st->have_sel && st->sel_pos < st->n_shown ? st->shown[st->sel_pos] : NULL;
}

void console_state_sort_step(struct console_state *st, int step)
{
	int next = (int)st->sort;
	/* the latency columns only while they are shown */
	for (int tries = 0; tries < FIELD_COUNT; tries++) {
		next = (next + step) % FIELD_COUNT;
		next = next < 0 ? next + FIELD_COUNT : next;
		if (!FIELD_IS_LATENCY(next) || (st->m && st->m->has_latency))
			break;
	}
	st->sort = (enum field_id)next;
	st->reverse = false;
	refresh(st);
}

void console_state_reverse(struct console_state *st)
{
	st->reverse = !st->reverse;
	refresh(st);
}

void console_state_select(struct console_state *st, long delta)
{
	if (!st->n_shown)
		return;
	long pos = (long)st->sel_pos + delta;
	if (pos < 0)
		pos = 0;
	select_pos(st, (size_t)pos);
}

void console_state_set_filter(struct console_state *st, const char *filter)
{
	snprintf(st->filter, sizeof(st->filter), "%s", filter ? filter : "");
	refresh(st);
}

void console_state_add_mark(struct console_state *st, const char *label, int64_t now_ns)
{
	struct console_mark *p = realloc(st->marks, (st->n_marks + 1) * sizeof(*p));
	if (!p) {
		snprintf(st->status, sizeof(st->status), "out of memory: mark not added");
		return;
	}
	st->marks = p;
	struct console_mark *mk = &p[st->n_marks++];
	if (label && label[0])
		snprintf(mk->label, sizeof(mk->label), "%s", label);
	else
		snprintf(mk->label, sizeof(mk->label), "mark %zu", st->n_marks);
	mk->realtime_ns = now_ns;
	char shown[4 * CONSOLE_TEXT_MAX], where[256] = "";
	grid_text(mk->label, st->o.ascii_only, shown, sizeof(shown));
	if (!st->o.on_mark) {
		snprintf(st->status, sizeof(st->status), "mark %zu added: %s", st->n_marks, shown);
		return;
	}
	int kept = st->o.on_mark(st->o.mark_ctx, mk->label, now_ns, where, sizeof(where));
	char why[4 * sizeof(where)];
	/* where is a file name or a reason, possibly holding anything a path may hold */
	grid_text(where, st->o.ascii_only, why, sizeof(why));
	if (kept > 0)
		snprintf(st->status, sizeof(st->status), "mark %zu recorded in %s: %s", st->n_marks,
		         why, shown);
	else
		snprintf(st->status, sizeof(st->status), "mark %zu kept on screen only%s (%s): %s",
		         st->n_marks, kept < 0 ? ", NOT recorded" : "", why[0] ? why : "?", shown);
}

/* The delays +/- step through (seconds); a delay between two steps goes to the next. */
static const double delay_steps[] = {0.1, 0.2, 0.5, 1, 2, 3, 5, 10, 15, 30, 60, 300, 3600};
#define N_DELAY_STEPS (sizeof(delay_steps) / sizeof(delay_steps[0]))

void console_state_delay_step(struct console_state *st, int step)
{
	double d = st->delay_s;
	if (step > 0) {
		for (size_t i = 0; i < N_DELAY_STEPS; i++)
			if (delay_steps[i] > d + 1e-9) {
				d = delay_steps[i];
				break;
			}
	} else {
		for (size_t i = N_DELAY_STEPS; i-- > 0;)
			if (delay_steps[i] < d - 1e-9) {
				d = delay_steps[i];
				break;
			}
	}
	st->delay_s = d;
	snprintf(st->status, sizeof(st->status), "delay %.1f s", d);
}

/* --- keys -------------------------------------------------------------------------- */

static bool is_typed_char(int key)
{
	return key >= 0x20 && key < 0x7f; /* what a prompt accepts: printable ASCII only */
}

static enum console_action prompt_key(struct console_state *st, int key, int64_t now_ns)
{
	size_t len = strlen(st->input);
	if (key == CK_ENTER) {
		enum console_prompt was = st->prompt;
		st->prompt = PROMPT_NONE;
		if (was == PROMPT_GOTO) { /* the feed finds it: a time or a mark */
			snprintf(st->go_to, sizeof(st->go_to), "%s",
			         st->input[0] ? st->input : "start");
			st->nav = NAV_GOTO;
			return CA_NAVIGATE;
		}
		if (was == PROMPT_MARK)
			console_state_add_mark(st, st->input, now_ns);
		else
			console_state_set_filter(st, st->input);
	} else if (key == CK_ESCAPE) {
		st->prompt = PROMPT_NONE;
	} else if (key == CK_BACKSPACE) {
		if (len)
			st->input[len - 1] = '\0';
	} else if (is_typed_char(key) && len + 1 < sizeof(st->input)) {
		st->input[len] = (char)key;
		st->input[len + 1] = '\0';
	} else {
		return CA_NONE;
	}
	return CA_REDRAW;
}

static void begin_prompt(struct console_state *st, enum console_prompt p)
{
	st->prompt = p;
	/* the filter prompt starts from the current filter, to edit it */
	snprintf(st->input, sizeof(st->input), "%s", p == PROMPT_FILTER ? st->filter : "");
}

/* Replay: the keys that move through the recording, the one place each is defined (the
 * help lists this table). p plays and pauses: pausing the display is pausing the playing;
 * g asks for where to go (NAV_GOTO: a time or a mark). */
const struct console_replay_key console_replay_keys[] = {
    {{{CK_LEFT, NAV_STEP_BACK}, {CK_RIGHT, NAV_STEP_AHEAD}}, "Left Right", "step one interval"},
    {{{'[', NAV_PERIOD_BACK}, {']', NAV_PERIOD_AHEAD}}, "[ ]", "step a period back / on"},
    {{{'{', NAV_PERIOD_SHORTER}, {'}', NAV_PERIOD_LONGER}}, "{ }", "shorter / longer period"},
    {{{'N', NAV_PREV_MARK}, {'n', NAV_NEXT_MARK}}, "N n", "previous / next mark"},
    {{{'g', NAV_GOTO}, {'G', NAV_END}}, "g G", "go to a time or mark / end"},
    {{{' ', NAV_PLAY_PAUSE}, {'p', NAV_PLAY_PAUSE}}, "space p", "play / pause"},
    {{{'+', NAV_FASTER}, {'=', NAV_FASTER}, {'-', NAV_SLOWER}}, "+ -", "play faster / slower"},
    {{{0}}, NULL, NULL},
};

/* Replay: the keys that move through the recording, and m. CA_NONE: not a replay key. */
static enum console_action replay_key(struct console_state *st, int key)
{
	for (const struct console_replay_key *k = console_replay_keys; key && k->names; k++)
		for (size_t i = 0; i < CONSOLE_KEY_MOVES; i++) {
			if (k->moves[i].key != key)
				continue;
			if (k->moves[i].nav == NAV_GOTO) {
				begin_prompt(st, PROMPT_GOTO);
				return CA_REDRAW;
			}
			st->nav = k->moves[i].nav;
			return CA_NAVIGATE;
		}
	if (key != 'm')
		return CA_NONE;
	snprintf(st->status, sizeof(st->status),
	         "replay: the recording is read-only; add marks while recording");
	return CA_REDRAW;
}

/* The keys that sort the table and move the selection: true if key is one. */
static bool table_key(struct console_state *st, int key)
{
	switch (key) {
	case '<':
	case 'S':
		console_state_sort_step(st, -1);
		break;
	case '>':
	case 's':
		console_state_sort_step(st, +1);
		break;
	case 'r':
		console_state_reverse(st);
		break;
	case CK_UP:
	case 'k':
		console_state_select(st, -1);
		break;
	case CK_DOWN:
	case 'j':
		console_state_select(st, +1);
		break;
	case CK_PAGE_UP:
		console_state_select(st, -(long)st->page_rows);
		break;
	case CK_PAGE_DOWN:
		console_state_select(st, st->page_rows);
		break;
	case CK_HOME:
		console_state_select(st, -(long)st->n_shown);
		break;
	case CK_END:
		console_state_select(st, (long)st->n_shown);
		break;
	default:
		return false;
	}
	return true;
}

enum console_action console_state_key(struct console_state *st, int key, int64_t now_ns)
{
	if (st->prompt != PROMPT_NONE)
		return prompt_key(st, key, now_ns);
	st->status[0] = '\0';
	if (st->help) {
		st->help = false; /* any key closes the help */
		return CA_REDRAW;
	}
	if (st->o.replay) {
		enum console_action act = replay_key(st, key);
		if (act != CA_NONE)
			return act;
	}
	switch (key) {
	case 'q':
		if (!st->drilled)
			return CA_QUIT;
		st->drilled = false;
		break;
	case CK_ESCAPE:
	case CK_BACKSPACE:
		st->drilled = false;
		break;
	case CK_ENTER:
	case 'd':
		st->drilled = st->have_sel;
		break;
	case 'm':
		begin_prompt(st, PROMPT_MARK);
		break;
	case 'f':
		begin_prompt(st, PROMPT_FILTER);
		break;
	case 'p':
		st->paused = !st->paused;
		break;
	case '+':
	case '=': /* the unshifted + key */
		console_state_delay_step(st, +1);
		return CA_DELAY;
	case '-':
		console_state_delay_step(st, -1);
		return CA_DELAY;
	case 'h':
	case '?':
		st->help = true;
		break;
	default:
		return table_key(st, key) ? CA_REDRAW : CA_NONE;
	}
	return CA_REDRAW;
}
