/* clock.h - the two clocks every layer reads: monotonic for intervals and deadlines,
 * wall clock (realtime) for what is shown and recorded. Both in ns. */
#ifndef XIOTOP_CLOCK_H
#define XIOTOP_CLOCK_H

#include <signal.h>
#include <stdint.h>

int64_t clock_mono_ns(void);
int64_t clock_real_ns(void);
/* Sleeps ns (<= 0: not at all), resuming after signals unless *stop becomes non-zero
 * (stop may be NULL). */
void clock_sleep_ns(int64_t ns, const volatile sig_atomic_t *stop);

#endif
