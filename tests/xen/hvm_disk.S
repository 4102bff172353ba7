# hvm_disk.S - the HVM guest of the Xen test's phase H (hvm.sh): no operating system and
# no BIOS. xl loads it in hvmloader's place (firmware_override); Xen starts it in 32-bit
# protected mode at 1 MiB, paging off. It drives the guest's first disk (qemu's emulated
# IDE, a PIIX3 controller; the image a file in dom0) as an OS's IDE driver does: bus-master
# DMA, WRITE DMA / READ DMA of CHUNK sectors a command, the command's end taken from the
# disk's interrupt (IRQ 14) while the vCPU sleeps in hlt. Each access to the controller's
# ports is a round trip through Xen's ioreq to qemu in dom0, which moves the data between
# the guest's memory and the image file.
# It writes WR_SECT sectors from LBA0 on, reads them back, checks each sector's stamp (its
# LBA and "XIOT" at its start, the LBA inverted at its end), times every command with the
# TSC (Xen's CPUID leaf 0x40000003 gives its rate), prints its own counts in hex on COM1
# (qemu's serial: the domain's pty) and on Xen's debug port 0xe9 (`xl dmesg`), then sleeps
# with every interrupt masked until dom0 destroys it.
# Why no BIOS: under qemu TCG hvmloader and SeaBIOS took ~40 s to reach a boot sector,
# and SeaBIOS's disk services move each sector by PIO with status polls around it: 1.4 MiB
# in 150 s (2026-12-06). hvm_build.sh assembles it on the host at test time.
	.code32
	.intel_syntax noprefix
	.ifndef WR_SECT
	.set WR_SECT, 32768             # 16 MiB
	.endif
	.ifndef CHUNK
	.set CHUNK, 256                 # sectors a command: 128 KiB, the most READ/WRITE DMA move
	.endif
	.set RD_SECT, WR_SECT           # all of it read back
	.set LBA0, 2048                 # 1 MiB in
	.set BUF, 0x400000              # the data buffer: 4 MiB in, clear of what xl loads
	.set PRD_BYTES, 0x8000          # each PRD entry: 32 KiB (none may cross 64 KiB)
	.set MAGIC, 0x544f4958          # "XIOT"
	.set ATA, 0x1f0                 # the primary channel's command block
	.set ATA_CTL, 0x3f6             # its control block: alternate status, device control
	.set PCI_IDE, 0x80000900        # config address of 00:01.1, the PIIX3 IDE function
	.set PIIX3_IDE, 0x70108086      # its device and vendor ids
	.set BM_PORT, 0xc000            # where its bus-master registers go (BAR 4)
	.set LAPIC, 0xfee00000
	.set PORT_E9, 0xe9
	.set COM1, 0x3f8
	.set POLL_TICKS, 10             # no disk interrupt for 100 ms: look at the controller

	.text
	.ifdef MULTIBOOT                # (to try it in plain qemu: -kernel)
	.p2align 2
	.long 0x1badb002, 0, -0x1badb002
	.endif
	.globl _start
_start:
	cli
	lgdt	[gdt_desc]
	.byte	0xea                        # jmp far 0x08:1f, CS from this GDT
	.long	1f
	.word	0x08
1:	mov	ax, 0x10
	mov	ds, ax
	mov	es, ax
	mov	ss, ax
	mov	esp, offset stack_top
	cld
	mov	edi, offset bss_start         # the counts start at 0
	mov	ecx, offset bss_end - bss_start
	xor	al, al
	rep	stosb
	mov	esi, offset msg_start
	call	puts
	mov	eax, WR_SECT
	call	hex32
	mov	esi, offset f_chunk
	call	puts
	mov	eax, CHUNK
	call	hex32
	mov	al, 10
	call	putc
	# the TSC's rate as Xen gives it to the guest (0 when not under Xen)
	mov	eax, 0x40000000
	cpuid
	cmp	ebx, 0x566e6558             # "XenV"
	jne	1f
	mov	eax, 0x40000003
	xor	ecx, ecx
	cpuid
	mov	dword ptr [khz], ecx
1:	call	setup_irq
	call	setup_ide
	mov	dx, ATA_CTL                 # one port access qemu serves, 32 times
	mov	ebx, offset probe_qemu
	call	probe
	mov	dx, 0xb008                  # one Xen serves itself (the ACPI PM timer)
	mov	ebx, offset probe_xen
	call	probe
	rdtsc
	mov	dword ptr [t_start], eax
	mov	dword ptr [t_start + 4], edx
	# writes: stamp the chunk, write it, on to the next
	mov	dword ptr [lba], LBA0
	mov	dword ptr [left], WR_SECT
wloop:
	mov	eax, dword ptr [lba]
	mov	edx, MAGIC
	call	fill
	mov	ax, 0x00ca                  # WRITE DMA; the bus master reads memory
	mov	ebx, offset wr_tsc
	call	dma
	add	dword ptr [wr_done], CHUNK
	inc	dword ptr [wr_cmds]
	call	next
	ja	wloop
	# reads: the stamps cleared, the chunk read, each sector's stamp checked
	mov	dword ptr [lba], LBA0
	mov	dword ptr [left], RD_SECT
rloop:
	xor	eax, eax
	xor	edx, edx
	call	fill
	mov	ax, 0x08c8                  # READ DMA; the bus master writes memory
	mov	ebx, offset rd_tsc
	call	dma
	add	dword ptr [rd_done], CHUNK
	inc	dword ptr [rd_cmds]
	call	verify
	call	next
	ja	rloop
	rdtsc
	sub	eax, dword ptr [t_start]
	sbb	edx, dword ptr [t_start + 4]
	mov	dword ptr [elapsed], eax
	mov	dword ptr [elapsed + 4], edx
	mov	esi, offset msg_done
	call	puts
	mov	esi, offset fields
	mov	ecx, offset NFIELDS
2:	lodsd                           # the field's name
	push	esi
	mov	esi, eax
	call	puts
	pop	esi
	lodsd                           # its value's address
	mov	eax, dword ptr [eax]
	call	hex32
	loop	2b
	mov	al, 10
	call	putc
park:	# every interrupt masked, the vCPU asleep (not halted with interrupts off: Xen
	# would take that for a power-off, and the domain would go before dom0 read it)
	mov	al, 0xff
	out	0x21, al
	out	0xa1, al
1:	sti
	hlt
	jmp	1b

next:	# the next chunk; ZF and CF clear (ja) while sectors are left
	add	dword ptr [lba], CHUNK
	sub	dword ptr [left], CHUNK
	ret

probe:	# 32 reads of port DX, their TSC cycles at EBX
	rdtsc
	mov	esi, eax
	mov	ecx, 32
1:	in	al, dx
	loop	1b
	rdtsc
	sub	eax, esi
	mov	dword ptr [ebx], eax
	ret

# setup_irq: an IDT (an exception stops the program, saying so), the PICs at vectors
# 0x20-0x2f with the timer (IRQ 0, 100 Hz) and the disk (IRQ 14) unmasked, the local APIC
# passing the PICs' interrupts (LVT0 ExtINT), interrupts on
setup_irq:
	xor	ecx, ecx
1:	mov	eax, offset exc
	cmp	ecx, 0x20
	jb	2f
	mov	eax, offset irq_timer
	je	2f
	mov	eax, offset irq_master
	cmp	ecx, 0x28
	jb	2f
	mov	eax, offset irq_slave
2:	mov	edx, eax
	and	eax, 0xffff
	or	eax, 0x00080000             # selector 0x08
	mov	dword ptr [idt + ecx * 8], eax
	and	edx, 0xffff0000
	or	edx, 0x8e00                 # present, 32-bit interrupt gate
	mov	dword ptr [idt + ecx * 8 + 4], edx
	inc	ecx
	cmp	ecx, 0x30
	jb	1b
	lidt	[idt_desc]
	mov	al, 0x11                    # ICW1: edge, cascade, ICW4
	out	0x20, al
	out	0xa0, al
	mov	al, 0x20                    # ICW2: the vectors
	out	0x21, al
	mov	al, 0x28
	out	0xa1, al
	mov	al, 4                       # ICW3: the slave on IRQ 2
	out	0x21, al
	mov	al, 2
	out	0xa1, al
	mov	al, 1                       # ICW4: 8086 mode
	out	0x21, al
	out	0xa1, al
	mov	al, 0xfa                    # IRQ 0 and the cascade
	out	0x21, al
	mov	al, 0xbf                    # IRQ 14
	out	0xa1, al
	mov	al, 0x34                    # PIT channel 0, rate generator, 100 Hz
	out	0x43, al
	mov	al, 0x9c                    # 1193182 / 100 = 0x2e9c
	out	0x40, al
	mov	al, 0x2e
	out	0x40, al
	mov	dword ptr [LAPIC + 0xf0], 0x1ff # software-enabled
	mov	dword ptr [LAPIC + 0x350], 0x700 # LVT0: ExtINT
	sti
	ret

exc:	# an exception: said, then stop
	mov	esi, offset msg_exc
	call	puts
	jmp	park

irq_timer:
	inc	dword ptr [ticks]
irq_master: # end of interrupt; the waiter looks at the counts
	push	eax
	mov	al, 0x20
	out	0x20, al
	pop	eax
	iretd
irq_slave:
	inc	dword ptr [irqs]
	push	eax
	mov	al, 0x20
	out	0xa0, al
	out	0x20, al
	pop	eax
	iretd

# setup_ide: the IDE function found, its bus-master registers placed (BAR 4: the BIOS
# would have), I/O decoding and bus mastering on, the disk's interrupt enabled
setup_ide:
	mov	eax, PCI_IDE
	call	pci_read
	cmp	eax, PIIX3_IDE
	jne	nodev
	mov	eax, PCI_IDE + 0x20
	mov	ecx, BM_PORT | 1
	call	pci_write
	mov	eax, PCI_IDE + 4
	call	pci_read
	or	al, 5                       # I/O space, bus master
	mov	ecx, eax
	mov	eax, PCI_IDE + 4
	call	pci_write
	mov	dx, ATA_CTL
	xor	al, al                      # nIEN clear: the disk interrupts
	out	dx, al
	ret
nodev:	# EAX: what 00:01.1 is instead
	mov	esi, offset msg_nodev
	call	puts
	call	hex32
	mov	al, 10
	call	putc
	jmp	park

pci_read: # EAX: a config address; its dword back in EAX
	mov	dx, 0xcf8
	out	dx, eax
	mov	dx, 0xcfc
	in	eax, dx
	ret
pci_write: # EAX: a config address, ECX: the dword to write there
	mov	dx, 0xcf8
	out	dx, eax
	mov	eax, ecx
	mov	dx, 0xcfc
	out	dx, eax
	ret

# dma: one command of CHUNK sectors at [lba] through the buffer: AL the ATA command, AH
# the bus master's direction; its TSC cycles, command to completion, added at EBX. The
# controller is asked whether the command is done when the disk has interrupted, or when
# it has not for POLL_TICKS timer ticks
dma:
	push	eax
	mov	dx, ATA_CTL
1:	in	al, dx                      # the disk not busy
	test	al, 0x80
	jnz	1b
	mov	dx, BM_PORT + 2
	mov	al, 6                       # the bus master's interrupt and error bits cleared
	out	dx, al
	add	dx, 2
	mov	eax, offset prd
	out	dx, eax                     # the PRD table
	mov	dx, ATA + 2
	mov	al, CHUNK & 0xff            # sector count (0: 256)
	out	dx, al
	mov	eax, dword ptr [lba]
	inc	dx
	out	dx, al                      # LBA 0-7
	shr	eax, 8
	inc	dx
	out	dx, al                      # 8-15
	shr	eax, 8
	inc	dx
	out	dx, al                      # 16-23
	shr	eax, 8
	and	al, 0x0f
	or	al, 0xe0                    # LBA, the master, 24-27
	inc	dx
	out	dx, al
	mov	esi, dword ptr [irqs]       # the disk's interrupts so far
	mov	edi, dword ptr [ticks]      # the tick of the last look
	rdtsc
	mov	dword ptr [t0], eax
	mov	dword ptr [t0 + 4], edx
	pop	eax
	mov	dx, ATA + 7
	out	dx, al                      # the command
	mov	al, ah
	or	al, 1
	mov	dx, BM_PORT
	out	dx, al                      # the bus master started
	add	dx, 2
2:	cli                             # (sti; hlt: no interrupt lost in between)
	cmp	esi, dword ptr [irqs]
	jne	3f
	mov	eax, dword ptr [ticks]
	sub	eax, edi
	cmp	eax, POLL_TICKS
	jae	3f
	sti
	hlt
	jmp	2b
3:	mov	esi, dword ptr [irqs]
	mov	edi, dword ptr [ticks]
	sti
	inc	dword ptr [polls]
	in	al, dx
	test	al, 6                       # interrupt or error
	jz	2b
	mov	byte ptr [bmstat], al
	rdtsc
	sub	eax, dword ptr [t0]
	sbb	edx, dword ptr [t0 + 4]
	add	dword ptr [ebx], eax
	adc	dword ptr [ebx + 4], edx
	mov	dx, BM_PORT
	xor	al, al
	out	dx, al                      # the bus master stopped
	mov	dx, ATA + 7
	in	al, dx                      # the status (this ends the interrupt)
	mov	byte ptr [status], al
	test	al, 0x21                    # error, device fault
	jnz	fail
	test	byte ptr [bmstat], 2
	jnz	fail
	ret

fail:	# the disk's status, the bus master's, the LBA of the command
	mov	esi, offset msg_fail
	call	puts
	movzx	eax, byte ptr [status]
	call	hex32
	movzx	eax, byte ptr [bmstat]
	call	hex32
	mov	eax, dword ptr [lba]
	call	hex32
	mov	al, 10
	call	putc
	jmp	park

# fill: each sector of the buffer starts with EAX (its LBA) and EDX (MAGIC), ends with
# ~EAX; EAX and EDX 0 clear the stamps instead
fill:
	mov	edi, BUF
	mov	ecx, CHUNK
1:	mov	dword ptr [edi], eax
	mov	dword ptr [edi + 4], edx
	not	eax
	mov	dword ptr [edi + 508], eax
	not	eax
	test	eax, eax
	jz	2f
	inc	eax
2:	add	edi, 512
	loop	1b
	ret

# verify: each sector read back bears its own stamp (good) or not (bad)
verify:
	mov	edi, BUF
	mov	eax, dword ptr [lba]
	mov	ecx, CHUNK
1:	mov	ebx, offset good
	cmp	dword ptr [edi], eax
	jne	2f
	cmp	dword ptr [edi + 4], MAGIC
	jne	2f
	not	eax
	cmp	dword ptr [edi + 508], eax
	not	eax
	je	3f
2:	mov	ebx, offset bad
3:	inc	dword ptr [ebx]
	inc	eax
	add	edi, 512
	loop	1b
	ret

puts:	# the zero-ended string at ESI
	lodsb
	test	al, al
	jz	1f
	call	putc
	jmp	puts
1:	ret

putc:	# AL to Xen's debug port and to COM1
	out	PORT_E9, al
	push	edx
	mov	dx, COM1
	out	dx, al
	pop	edx
	ret

hex32:	# EAX as 8 hex digits
	push	ecx
	mov	ecx, 8
1:	rol	eax, 4
	push	eax
	and	al, 0x0f
	add	al, '0'
	cmp	al, '9'
	jbe	2f
	add	al, 'a' - '9' - 1
2:	call	putc
	pop	eax
	loop	1b
	pop	ecx
	ret

	.section .rodata
msg_start: .asciz "XIOTOP-HVM: start wr_sect "
msg_done: .asciz "XIOTOP-HVM: done"
msg_fail: .asciz "XIOTOP-HVM: failed ata bm lba "
msg_nodev: .asciz "XIOTOP-HVM: failed no PIIX3 IDE at 00:01.1 "
msg_exc: .asciz "XIOTOP-HVM: failed exception\n"
f_wr:	.asciz " wr_sect "
f_rd:	.asciz " rd_sect "
f_wrc:	.asciz " wr_cmds "
f_rdc:	.asciz " rd_cmds "
f_good:	.asciz " good "
f_bad:	.asciz " bad "
f_chunk: .asciz " chunk "
f_wrt:	.asciz " wr_tsc "
f_rdt:	.asciz " rd_tsc "
f_el:	.asciz " elapsed_tsc "
f_khz:	.asciz " tsc_khz "
f_pq:	.asciz " probe32_qemu "
f_px:	.asciz " probe32_xen "
f_irq:	.asciz " disk_irqs "
f_poll:	.asciz " polls "
empty:	.byte 0
	.p2align 2
fields:	# name, value: what "done" prints (the TSC counts as high, low dwords)
	.long f_wr, wr_done, f_rd, rd_done, f_wrc, wr_cmds, f_rdc, rd_cmds, f_good, good
	.long f_bad, bad, f_chunk, chunk, f_wrt, wr_tsc + 4, empty, wr_tsc
	.long f_rdt, rd_tsc + 4, empty, rd_tsc, f_el, elapsed + 4, empty, elapsed
	.long f_khz, khz, f_pq, probe_qemu, f_px, probe_xen, f_irq, irqs, f_poll, polls
fields_end:
	.set NFIELDS, (fields_end - fields) / 8
chunk:	.long CHUNK
	.p2align 3
gdt:	.quad 0
	.quad 0x00cf9a000000ffff        # 0x08: code, flat, 32-bit
	.quad 0x00cf92000000ffff        # 0x10: data, flat
gdt_desc: .word 3 * 8 - 1
	.long gdt
idt_desc: .word 0x30 * 8 - 1
	.long idt
	.p2align 3
prd:	# the buffer in 32 KiB pieces, the last marked
	.set PRD_N, CHUNK * 512 / PRD_BYTES
	.set i, 0
	.rept PRD_N
	.long BUF + i * PRD_BYTES
	.if i == PRD_N - 1
	.long 0x80000000 | PRD_BYTES
	.else
	.long PRD_BYTES
	.endif
	.set i, i + 1
	.endr

	.section .bss
	.p2align 3
idt:	.skip 0x30 * 8
	.skip 4096
stack_top:
bss_start:                              # the counts: zeroed at start
status:	.byte 0
bmstat:	.byte 0
	.p2align 2
khz:	.long 0
lba:	.long 0
left:	.long 0
wr_done: .long 0
rd_done: .long 0
wr_cmds: .long 0
rd_cmds: .long 0
good:	.long 0
bad:	.long 0
t0:	.long 0, 0
t_start: .long 0, 0
wr_tsc:	.long 0, 0
rd_tsc:	.long 0, 0
elapsed: .long 0, 0
probe_qemu: .long 0
probe_xen: .long 0
ticks:	.long 0                         # timer interrupts
irqs:	.long 0                         # interrupts from the second PIC (the disk's)
polls:	.long 0                         # looks at the controller while commands ran
bss_end:
