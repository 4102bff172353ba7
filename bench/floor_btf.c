/* floor_btf.c - attaches the empty tp_btf programs of floor_btf.bpf.o named on the command
 * line (block_bio_queue, block_bio_complete, block_rq_complete, workqueue_execute_start,
 * writeback_dirty_folio), prints "Attaching N programs" once they are, and holds them until
 * SIGINT or SIGTERM. bench/compare.sh's floor_btf peer: the cost of xiotop's events with
 * nothing in them.
 *
 * Usage: xiotop-floor-bench OBJECT PROGRAM...   (root) */
#include <bpf/libbpf.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s OBJECT PROGRAM...\n", argv[0]);
		return 2;
	}
	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "floor_btf: cannot open %s\n", argv[1]);
		return 1;
	}
	/* only the programs asked for are loaded: the others would cost nothing, but a peer
	 * that loads what it does not attach is not what it says it is */
	struct bpf_program *prog;
	bpf_object__for_each_program(prog, obj)
	{
		int wanted = 0;
		for (int i = 2; i < argc; i++)
			wanted |= strcmp(bpf_program__name(prog), argv[i]) == 0;
		bpf_program__set_autoload(prog, wanted);
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "floor_btf: load failed\n");
		return 1;
	}
	int attached = 0;
	for (int i = 2; i < argc; i++) {
		prog = bpf_object__find_program_by_name(obj, argv[i]);
		if (!prog || !bpf_program__attach(prog)) {
			fprintf(stderr, "floor_btf: no program %s attached\n", argv[i]);
			return 1;
		}
		attached++;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("Attaching %d programs\n", attached);
	fflush(stdout);
	while (!stop)
		pause();
	bpf_object__close(obj);
	return 0;
}
