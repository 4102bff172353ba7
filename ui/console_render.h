/* console_render.h - the whole console screen as a text grid, from the state alone.
 *
 * Contract: console_render() fills every line of the grid from the state and its shown
 * interval: three header lines (time, domains, host disks, vmstat bo, double count, dom0
 * CPU, unattributed share, lost events, hooks), in a replay a fourth (the time shown,
 * sample i/n, playing or paused, the step period, the nearest mark), then the table, a
 * domain's layer stack (drill-down) or the help (console_help.h), and a bottom line
 * (prompt, message or key hints). It reads no clock and no terminal, so a known state
 * gives a known screen (expected-screen tests). Times are shown in local time, with
 * their zone. The only state it changes is the scroll position that
 * keeps the selection on screen and the page size used by page up/down.
 */
#ifndef XIOTOP_CONSOLE_RENDER_H
#define XIOTOP_CONSOLE_RENDER_H

#include "ui/console_state.h"
#include "ui/grid.h"

#define CONSOLE_HEADER_LINES 3 /* a replay adds one */

void console_render(struct console_state *st, struct grid *g);

#endif
