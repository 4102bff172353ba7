/* console_help.c - the console's help screen; see console_help.h. */
#include "ui/console_help.h"

#include <stdio.h>

#include "ui/fields.h"
#include "ui/rows.h"

struct help_key {
	const char *keys, *what;
};

/* The keys both consoles take, then each one's own; the help lists them in that order. */
static const struct help_key common_help[] = {
    {"< > s S", "previous / next sort column"},
    {"r", "reverse the sort order"},
    {"Up Down", "select (PgUp PgDn Home End)"},
    {"Enter d", "drill into the selected row"},
    {"Esc q BS", "back from the layer stack"},
    {"f", "filter by name (empty: all)"},
    {NULL, NULL},
};

static const struct help_key live_help[] = {
    {"m", "add a labelled mark"},
    {"p", "pause / resume the display"},
    {"+ -", "longer / shorter delay"},
    {"h ?", "this help;  q quits"},
    {NULL, NULL},
};

static const struct help_key replay_help[] = {
    {"h ?", "this help;  q quits"},
    {NULL, NULL},
};

#define HELP_KEYS_MAX 20

/* common_help, the replay key table's (console_state.h) when replaying, then own, into
 * keys (NULL-terminated). */
static void help_keys(bool replay, const struct help_key *own, struct help_key *keys)
{
	size_t n = 0;
	for (const struct help_key *k = common_help; k->keys && n + 1 < HELP_KEYS_MAX; k++)
		keys[n++] = *k;
	for (const struct console_replay_key *k = console_replay_keys;
	     replay && k->names && n + 1 < HELP_KEYS_MAX; k++)
		keys[n++] = (struct help_key){k->names, k->help};
	for (const struct help_key *k = own; k->keys && n + 1 < HELP_KEYS_MAX; k++)
		keys[n++] = *k;
	keys[n] = (struct help_key){NULL, NULL};
}

void console_render_help(const struct console_state *st, struct grid *g, int bottom)
{
	char line[LINE_MAX_BYTES];
	struct help_key keys[HELP_KEYS_MAX];
	help_keys(st->o.replay, st->o.replay ? replay_help : live_help, keys);
	/* "Left Right" needs a wider key column; two entries still fit in 80 */
	int key_w = st->o.replay ? 11 : 10, what_w = st->o.replay ? 29 : 30;
	int y = 0;
	grid_put(g, y++, "xiotop keys (any key closes this help)", GRID_HEADER);
	/* two keys a line when they fit side by side */
	size_t per_line = g->w >= 80 ? 2 : 1;
	for (size_t i = 0; keys[i].keys && y < bottom; i += per_line) {
		line[0] = '\0';
		for (size_t k = i; k < i + per_line && keys[k].keys; k++) {
			text_append_cell(line, sizeof(line), keys[k].keys, key_w, true);
			text_append_cell(line, sizeof(line), keys[k].what, what_w, true);
		}
		grid_put(g, y++, line, GRID_PLAIN);
	}
	y++;
	if (y < bottom)
		grid_put(g, y++, "columns (low-priority ones drop first on narrow screens)",
		         GRID_HEADER);
	for (int i = 0; i < fields_count() && y < bottom; i++) {
		if (FIELD_IS_LATENCY(i) && !(st->m && st->m->has_latency))
			continue; /* not laid out: not explained */
		fields_help_line(field_get((enum field_id)i), false, line, sizeof(line));
		grid_put(g, y++, line, GRID_PLAIN);
	}
}
