/* prose.c - each verdict's writer, by verdict id (see prose.h). */
#include "explain/report/prose.h"

/* clang-format off */
static prose_fn *const writers[EXV_COUNT] = {
    [EXV_PAGE_CACHE_INFLATION] = prose_page_cache_inflation,
    [EXV_DOUBLE_COUNTING]      = prose_double_counting,
    [EXV_DOM0_CPU_COST]        = prose_dom0_cpu_cost,
    [EXV_READ_CACHE]           = prose_read_cache,
    [EXV_TEST_SIZE_VS_MEMORY]  = prose_test_size_vs_memory,
    [EXV_REQUEST_SIZE]         = prose_request_size,
    [EXV_PATH]                 = prose_path,
    [EXV_CLAIM]                = prose_claim,
    [EXV_QUEUE_DEPTH]          = prose_queue_depth,
    [EXV_DIRECT_BUFFERED]      = prose_direct_buffered,
};
/* clang-format on */

void prose_verdict(const struct explain *ex, const struct ex_verdict *v, char *buf, size_t len)
{
	struct prose p = {.buf = buf, .len = len};
	buf[0] = '\0';
	writers[v->id](&p, ex, v, prose_domain(ex, v->domid));
}
