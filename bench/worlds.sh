# shellcheck shell=bash
# worlds.sh - sourced by bench/compare.sh and bench/turns.sh: their worlds, on one emulated
# dom0 (tests/emu) whose env is loaded (XENSTORE_DUMP, DOM1_DEV, DOM3_DEV) and with $work
# their work directory. Each world is a host as xiotop sees it (the xenstore it is given)
# and the device the workloads write to:
#   dio-on   the two file-backed domains (guest1 on a loop device, guest2 on a partition of
#            one); guest1's loop device with direct I/O on; the workloads on guest1
#   dio-off  the same with its direct I/O off (the loop worker writes the image through
#            dom0's page cache)
#   bio      guest3 alone, on a bare zram (a bio-based device, the stand-in for an LV), as a
#            host whose domains are all on block devices; the workloads on guest3
#   mixed    all three domains (file-backed and bio-based on one host), guest1's direct
#            I/O on, the workloads on guest1 (the image's file system is itself on a zram)
# shellcheck disable=SC2154 # $work and the world's env are the sourcing script's

worlds_check() { # world...: exits 2 naming one that is not a world
	local w
	for w in "$@"; do
		case $w in dio-on | dio-off | bio | mixed) ;; *) echo "no world $w (dio-on dio-off bio mixed)" >&2; exit 2 ;; esac
	done
}
worlds_dumps() { # the xenstore each world's xiotop is given: the file-backed domains, or guest3 alone
	grep -v -e '^/local/domain/3' -e '/backend/vbd/3' "$XENSTORE_DUMP" >"$work/files.dump"
	grep -v -E -e '^/local/domain/[12]( |/)' -e '/backend/vbd/[12]( |/)' "$XENSTORE_DUMP" \
		>"$work/block.dump"
}
world_dump() { # world -> the xenstore dump xiotop is given (worlds_dumps made them)
	case $1 in
	dio-on | dio-off) echo "$work/files.dump" ;;
	bio) echo "$work/block.dump" ;;
	mixed) echo "$XENSTORE_DUMP" ;;
	esac
}
world_target() { # world -> the device the workloads write to
	case $1 in bio) echo "$DOM3_DEV" ;; *) echo "$DOM1_DEV" ;; esac
}
set_dio() { # on|off: guest1's loop device, while no tool is attached (its start reads it)
	local want=$1 got
	losetup --direct-io="$want" "$DOM1_DEV"
	got=$(cat "/sys/block/${DOM1_DEV##*/}/loop/dio")
	[ "$got" = "$([ "$want" = on ] && echo 1 || echo 0)" ] || {
		echo "$DOM1_DEV kept direct I/O $got after --direct-io=$want" >&2
		exit 1
	}
}
enter_world() { # world: guest1's direct I/O as the world has it
	case $1 in dio-off) set_dio off ;; *) set_dio on ;; esac
}
# floor_btf: empty tp_btf programs (bench/floor_btf.c) at the per-I/O events xiotop attaches in
# the world, attached as xiotop's own: what a guest's I/O pays for those events whatever the
# programs do, the least any tool running at them can cost
floor_btf_of() { # world -> the programs
	case $1 in
	bio) echo block_bio_queue block_bio_complete block_rq_complete ;;
	*) echo block_bio_queue block_rq_complete workqueue_execute_start writeback_dirty_folio ;;
	esac
}
# floor_lat: the same, with a clock read where latency needs one (floor_btf.bpf.c's *_clock
# programs): the least any tool that times every I/O can cost
floor_lat_of() { # world -> the programs
	case $1 in
	bio) echo block_bio_queue_clock block_bio_complete_clock block_rq_complete ;;
	*) echo block_bio_queue block_rq_complete_clock workqueue_execute_start writeback_dirty_folio ;;
	esac
}
