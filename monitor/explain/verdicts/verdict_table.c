/* verdict_table.c - the verdict table: each verdict's name, rank, where it applies and its
 * judges, the one place a verdict is named (verdicts.h). verdicts_rank.c runs it. */
#include "explain/verdicts/verdicts.h"

/* Ranks: the order a reader takes the causes in when their shares are equal: what the
 * benchmark timed (the cache), what vmstat counted, what dom0 spent, what the guest read,
 * how the test was sized, then the mechanisms (requests, the path) and the tool's word. */
/* clang-format off */
const struct ex_verdict_kind ex_verdict_kinds[EXV_COUNT] = {
/*   id                          key                     rank applies                                   judge                         judge_import */
    [EXV_PAGE_CACHE_INFLATION] = {"page_cache_inflation", 0, EXV_GUESTS | EXV_DOM0 | EXV_IMPORT,      verdict_page_cache_inflation, import_page_cache_inflation},
    [EXV_DOUBLE_COUNTING]      = {"double_counting",      1, EXV_GUESTS | EXV_DOM0 | EXV_IMPORT_HOST, verdict_double_counting,      import_double_counting},
    [EXV_DOM0_CPU_COST]        = {"dom0_cpu_cost",        2, EXV_GUESTS | EXV_IMPORT_HOST,            verdict_dom0_cpu_cost,        import_dom0_cpu_cost},
    [EXV_READ_CACHE]           = {"read_cache",           3, EXV_GUESTS | EXV_IMPORT,                 verdict_read_cache,           import_read_cache},
    [EXV_TEST_SIZE_VS_MEMORY]  = {"test_size_vs_memory",  4, EXV_GUESTS | EXV_DOM0 | EXV_IMPORT,      verdict_test_size_vs_memory,  import_test_size_vs_memory},
    [EXV_REQUEST_SIZE]         = {"request_size",         5, EXV_GUESTS | EXV_IMPORT,                 verdict_request_size,         import_request_size},
    [EXV_PATH]                 = {"path",                 6, EXV_GUESTS,                              verdict_path,                 import_path},
    [EXV_CLAIM]                = {"claim",                7, EXV_ONCE,                                verdict_claims,               import_claim},
    [EXV_QUEUE_DEPTH]          = {"queue_depth_latency",  8, EXV_ONCE,                                verdict_queue_depth,          import_queue_depth},
    [EXV_DIRECT_BUFFERED]      = {"direct_io_buffered",   9, EXV_ONCE,                                verdict_direct_buffered,      import_direct_buffered},
};
/* clang-format on */
