# SPDX-License-Identifier: GPL-2.0
#
# Magic-register workloads (selftests/magic.c, selftests/mixed.c), included
# by the top Makefile, which defines ST_DIR (e.g. build/selftests) and CC.
#
#   $(ST_DIR)/magic_64    magic.c, -m64      abi=x86_64
#   $(ST_DIR)/magic_32    magic.c, -m32      abi=i386   (if the compiler can)
#   $(ST_DIR)/magic_x32   magic.c, -mx32     abi=x32    (if the compiler can)
#   $(ST_DIR)/mixed_64    mixed.c, -m64 -no-pie, abi=mixed
#   $(ST_DIR)/entry_race_64, _32  entry_race.c: every way into the kernel
#   $(ST_DIR)/xmagic_64, _32  xmagic.c: vector registers, selectors, bases
#   $(ST_DIR)/readzero_64, _32  readzero.c: read() of /dev/zero, kernel chains
#   $(ST_DIR)/fpchain_64, _32, _x32  fpchain.c: main > fp_a > fp_b > fp_c with frame
#                         pointers, fp user chains (test_fpchain.py)
#   $(ST_DIR)/mixed_fp_64  mixed_fp.c, -m64 -no-pie: a 32-bit frame chain in
#                         mixed mode
#
# ST_WORKLOADS lists the ones this compiler can build.  As CAN_BUILD_I386
# in the kernel's selftests/x86, a -m32 or -mx32 build is probed first
# (a static link of a libc call: it needs gcc-multilib, i.e. the i386 and
# x32 libc development files); when the probe fails the target is left out
# with a message instead of breaking the build.
#
# The flags are fixed rather than taken from CFLAGS: the workloads rely on
# -O1 code generation (frame pointer omitted, static, non-PIE).
#
# Including this file does not change the includer's default goal.

wl_saved_goal	:= $(.DEFAULT_GOAL)

WL_CFLAGS	:= -O1 -g -static -Wall -Wextra -Wno-unused-parameter -Wshadow
WL_DEPS		:= selftests/magic.h selftests/workloads.mk

# $(call wl_can_build,FLAGS): "y" if $(CC) FLAGS links a static program
# calling libc (stdio, clock_gettime), empty otherwise.
wl_can_build = $(shell t=$$(mktemp) || exit; \
	echo 'int main(void) { struct timespec ts; \
		return clock_gettime(CLOCK_MONOTONIC, &ts) + puts(""); }' | \
	$(CC) $(1) -static -include stdio.h -include time.h -x c -o "$$t" - \
		>/dev/null 2>&1 && echo y; rm -f "$$t")

WL_CAN_I386	:= $(call wl_can_build,-m32)
WL_CAN_X32	:= $(call wl_can_build,-mx32)

ST_WORKLOADS	:= $(ST_DIR)/magic_64 $(ST_DIR)/mixed_64 $(ST_DIR)/chain_64 \
		   $(ST_DIR)/entry_race_64 $(ST_DIR)/xmagic_64 $(ST_DIR)/readzero_64 \
		   $(ST_DIR)/fpchain_64 $(ST_DIR)/mixed_fp_64
WL_SKIPPED	:=
ifeq ($(WL_CAN_I386),y)
ST_WORKLOADS	+= $(ST_DIR)/magic_32 $(ST_DIR)/chain_32 $(ST_DIR)/entry_race_32 \
		   $(ST_DIR)/xmagic_32 $(ST_DIR)/readzero_32 $(ST_DIR)/fpchain_32
else
WL_SKIPPED	+= $(ST_DIR)/magic_32 $(ST_DIR)/chain_32 $(ST_DIR)/entry_race_32 \
		   $(ST_DIR)/xmagic_32 $(ST_DIR)/readzero_32 $(ST_DIR)/fpchain_32
endif
ifeq ($(WL_CAN_X32),y)
ST_WORKLOADS	+= $(ST_DIR)/magic_x32 $(ST_DIR)/chain_x32 $(ST_DIR)/fpchain_x32
else
WL_SKIPPED	+= $(ST_DIR)/magic_x32 $(ST_DIR)/chain_x32 $(ST_DIR)/fpchain_x32
endif

# The call-chain workload: CFI only, no frame pointers.
CHAIN_CFLAGS	:= -O2 -g -static -pthread -fomit-frame-pointer -fasynchronous-unwind-tables -Wall
$(ST_DIR)/chain_64: selftests/chain.c selftests/workloads.mk
	@mkdir -p $(@D)
	$(CC) -m64 $(CHAIN_CFLAGS) -o $@ $<
$(ST_DIR)/chain_32: selftests/chain.c selftests/workloads.mk
	@mkdir -p $(@D)
	$(CC) -m32 $(CHAIN_CFLAGS) -o $@ $<
$(ST_DIR)/chain_x32: selftests/chain.c selftests/workloads.mk
	@mkdir -p $(@D)
	$(CC) -mx32 $(CHAIN_CFLAGS) -o $@ $<

ifneq ($(strip $(WL_SKIPPED)),)
ifneq ($(filter-out clean,$(or $(MAKECMDGOALS),all)),)
$(info workloads: $(CC) cannot build $(notdir $(WL_SKIPPED)) (install gcc-multilib); skipping)
endif
endif

$(ST_DIR)/magic_64: selftests/magic.c $(WL_DEPS)
	@mkdir -p $(@D)
	$(CC) -m64 $(WL_CFLAGS) -o $@ $<

$(ST_DIR)/entry_race_64: selftests/entry_race.c $(WL_DEPS)
	@mkdir -p $(@D)
	$(CC) -m64 $(WL_CFLAGS) -o $@ $<

$(ST_DIR)/entry_race_32: selftests/entry_race.c $(WL_DEPS)
	@mkdir -p $(@D)
	$(CC) -m32 $(WL_CFLAGS) -o $@ $<

$(ST_DIR)/xmagic_64: selftests/xmagic.c $(WL_DEPS)
	@mkdir -p $(@D)
	$(CC) -m64 $(WL_CFLAGS) -o $@ $< -lm

$(ST_DIR)/xmagic_32: selftests/xmagic.c $(WL_DEPS)
	@mkdir -p $(@D)
	$(CC) -m32 -msse2 $(WL_CFLAGS) -o $@ $< -lm

# read() of /dev/zero in a loop: kernel call chains (test_kchain.py)
$(ST_DIR)/readzero_64: selftests/readzero.c $(WL_DEPS)
	@mkdir -p $(@D)
	$(CC) -m64 $(WL_CFLAGS) -o $@ $<

$(ST_DIR)/readzero_32: selftests/readzero.c $(WL_DEPS)
	@mkdir -p $(@D)
	$(CC) -m32 $(WL_CFLAGS) -o $@ $<

$(ST_DIR)/mixed_64: selftests/mixed.c $(WL_DEPS)
	@mkdir -p $(@D)
	$(CC) -m64 $(WL_CFLAGS) -no-pie -o $@ $<

# Frame-pointer user chains (test_fpchain.py): the WL_CFLAGS with the
# frame pointer kept in every function, leaves included.
FP_CFLAGS	:= $(WL_CFLAGS) -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
$(ST_DIR)/fpchain_64: selftests/fpchain.c $(WL_DEPS)
	@mkdir -p $(@D)
	$(CC) -m64 $(FP_CFLAGS) -o $@ $<

$(ST_DIR)/mixed_fp_64: selftests/mixed_fp.c $(WL_DEPS)
	@mkdir -p $(@D)
	$(CC) -m64 $(WL_CFLAGS) -no-pie -o $@ $<

$(ST_DIR)/fpchain_x32: selftests/fpchain.c $(WL_DEPS)
	@mkdir -p $(@D)
	$(CC) -mx32 $(FP_CFLAGS) -o $@ $<

ifeq ($(WL_CAN_I386),y)
$(ST_DIR)/fpchain_32: selftests/fpchain.c $(WL_DEPS)
	@mkdir -p $(@D)
	$(CC) -m32 $(FP_CFLAGS) -o $@ $<
else
$(ST_DIR)/fpchain_32:
	@echo "workloads: $(CC) cannot build -m32 static programs (install gcc-multilib)" >&2; exit 1
endif

ifeq ($(WL_CAN_I386),y)
$(ST_DIR)/magic_32: selftests/magic.c $(WL_DEPS)
	@mkdir -p $(@D)
	$(CC) -m32 $(WL_CFLAGS) -o $@ $<
else
$(ST_DIR)/magic_32:
	@echo "workloads: $(CC) cannot build -m32 static programs (install gcc-multilib)" >&2; exit 1
endif

ifeq ($(WL_CAN_X32),y)
$(ST_DIR)/magic_x32: selftests/magic.c $(WL_DEPS)
	@mkdir -p $(@D)
	$(CC) -mx32 $(WL_CFLAGS) -o $@ $<
else
$(ST_DIR)/magic_x32:
	@echo "workloads: $(CC) cannot build -mx32 static programs (install gcc-multilib)" >&2; exit 1
endif

.DEFAULT_GOAL	:= $(wl_saved_goal)
