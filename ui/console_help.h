/* console_help.h - the console's help screen (h, ?): its keys and its columns.
 *
 * Contract: console_render_help() fills the grid's lines above `bottom` with the keys both
 * consoles take, then the replay's (console_replay_keys[], the one table they are
 * defined in: console_state.h) or the live console's, two a line when the grid is 80
 * columns wide or more, then every column laid out with its meaning (fields.h). It reads
 * nothing but the state.
 */
#ifndef XIOTOP_CONSOLE_HELP_H
#define XIOTOP_CONSOLE_HELP_H

#include "ui/console_state.h"
#include "ui/grid.h"

void console_render_help(const struct console_state *st, struct grid *g, int bottom);

#endif
