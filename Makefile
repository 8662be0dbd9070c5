# perfregs: top-level build.
#
#   make            module for every matrix kernel installed, tool, selftests
#   make module     KVER=VERSION or KDIR=HEADERS to build for one kernel
#   make check      selftests in a guest for each kernel of the matrix
#   make check-debug  the selftests, fuzz and stress on the KASAN, KCSAN and
#                   KMSAN debug kernels (SANITIZER=kasan|kcsan|kmsan for one)
#   make soak       fuzz + stress for MINUTES on a debug KERNEL
#   make demo       a guest decoding a live workload with perfregs-dump
#   make deps       install the Debian packages (needs root)
#
# Everything generated goes under $(BUILD); nothing is written in the tree.

BUILD		?= $(CURDIR)/build
CC		?= gcc
CFLAGS		?= -O2 -g
# The tool is optimised across its files at link time: its layers are
# files of their own (docs/architecture.md), and a sample crosses a dozen
# of them.  Measured with callgrind on bench/ab_decode's recording (50000
# samples, --threads 1, --no-inline --no-demangle): -f folded 78.4 to
# 70.6 million instructions, text 210.9 to 202.1, json 198.8 to 190.6.
# Fat objects: the test programs link the same library without it
# (-fno-lto), in a moment each.  TOOL_LTO= builds without.
TOOL_LTO	?= -flto=auto -ffat-lto-objects
WARN		:= -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2
# the user ABI, and include/perfregs/: what the module and userspace share
UAPI		:= -I$(CURDIR)/include/uapi -I$(CURDIR)/include

# The scripts behind make deps, the kernel list, make check and make demo
# (tests/host_tests.sh puts fakes in their place), and what check and
# demo build before they run.
DEPS_SCRIPT	?= tools/deps.sh
KVERS_SCRIPT	?= tools/kvers.sh
CHECK_SCRIPT	?= tools/check.sh
DEMO_SCRIPT	?= tools/demo.sh
RUN_NEEDS	?= all

# make demo and make check are the first commands a person runs on a new
# machine: they install what is missing (as root) or name it, then run a
# second make that reads this file again.  A make whose only goals are
# these does not compute what depends on the packages: the kernel list and
# the workloads the compiler can build are right only once they are in.
ENTRY_GOALS	:= demo check deps
ifneq ($(MAKECMDGOALS),)
ifeq ($(filter-out $(ENTRY_GOALS),$(MAKECMDGOALS)),)
ENTRY_ONLY	:= y
endif
endif

ifeq ($(ENTRY_ONLY),y)
# a normal user cannot install: one line saying what to run, and stop
ifneq ($(shell id -u),0)
DEPS_MISSING	:= $(shell $(DEPS_SCRIPT) --check 2>&1)
ifneq ($(.SHELLSTATUS),0)
$(error $(DEPS_MISSING))
endif
endif
else ifneq ($(KDIR),)
KVERS		:= $(or $(KVER),$(shell make -s -C $(KDIR) kernelrelease 2>/dev/null))
else ifneq ($(KVER),)
KVERS		:= $(KVER)
else
KVERS		:= $(shell $(KVERS_SCRIPT))
endif

# convert --to pprof writes Google's profile.proto: the .proto that
# golang-github-google-pprof-dev ships, compiled by protoc-c under $(BUILD)
PROTO		?= /usr/share/gocode/src/github.com/google/pprof/proto/profile.proto
PB_DIR		:= $(BUILD)/proto
PB_C		:= $(PB_DIR)/profile.pb-c.c
PB_H		:= $(PB_DIR)/profile.pb-c.h

TOOL		:= $(BUILD)/perfregs-dump
# The decoder's sources but its commands (perfregs-dump.c, builtin-*.c
# and cmd/) and the fuzz target,
# with tools/lib and the generated protobuf code, are compiled once each
# into objects under $(BUILD)/obj, with the headers each includes
# (-MMD), and archived into $(TOOL_LIB): the tool and every host test
# program link it (one pattern rule below).
TOOL_DIR	:= tools/perfregs-dump
TOOL_MAIN_SRCS	:= $(TOOL_DIR)/perfregs-dump.c $(wildcard $(TOOL_DIR)/builtin-*.c $(TOOL_DIR)/cmd/*.c)
TOOL_LIB_SRCS	:= $(filter-out $(TOOL_MAIN_SRCS) %/fuzz_recording.c,$(wildcard $(TOOL_DIR)/*.c)) \
		   tools/lib/libperfregs.c $(PB_C)
TOOL_SRCS	:= $(TOOL_MAIN_SRCS) $(TOOL_LIB_SRCS)
TOOL_INC	:= $(UAPI) -I$(PB_DIR)
TOOL_LIBS	:= -ldw -lelf -lprotobuf-c -lz -liberty -pthread
OBJ		:= $(BUILD)/obj
obj_of		= $(patsubst $(BUILD)/%.c,$(OBJ)/%.o,$(filter $(BUILD)/%,$(1))) \
		  $(patsubst %.c,$(OBJ)/%.o,$(filter-out $(BUILD)/%,$(1)))
TOOL_LIB_OBJS	:= $(call obj_of,$(TOOL_LIB_SRCS))
TOOL_MAIN_OBJS	:= $(call obj_of,$(TOOL_MAIN_SRCS))
TOOL_LIB	:= $(BUILD)/libperfregs-dump.a
KSFT_DIR	:= $(BUILD)/kselftest
KSFT_HARNESS	:= $(KSFT_DIR)/kselftest_harness.h
LINUX_SRC_TAR	:= /usr/src/linux-source-6.1.tar.xz

ST_DIR		:= $(BUILD)/selftests
ST_TESTS	:= $(patsubst selftests/%.c,$(ST_DIR)/%,$(wildcard selftests/test_*.c))
ST_HDRS		:= $(wildcard selftests/*.h) tools/lib/libperfregs.h include/uapi/linux/perfregs.h \
		   $(wildcard include/perfregs/*.h)
# the workloads with magic registers, and those of real program shapes:
# ST_WORKLOADS and their rules.  Their makefiles probe what the compiler
# can build (a static link each, about a minute in all under TCG): not
# for the goals that do not build them (test_install.sh runs make install
# and dkms-install in a guest).
NO_WORKLOAD_GOALS := $(ENTRY_GOALS) install uninstall dkms-install dkms-uninstall
ifneq ($(MAKECMDGOALS),)
ifeq ($(filter-out $(NO_WORKLOAD_GOALS),$(MAKECMDGOALS)),)
NO_WORKLOADS	:= y
endif
endif
ifneq ($(NO_WORKLOADS),y)
-include selftests/workloads.mk
-include selftests/realprog.mk
endif

MOD_SRCS	:= $(wildcard module/*.c module/*.h) module/Kbuild include/uapi/linux/perfregs.h \
		   $(wildcard include/perfregs/*.h)

# test programs linked against the decoder's library (one rule below)
HOST_LINKED	:= mkrec mksimd mkmaps mkhostile elfpeek mksb mklatevdso mkexec mkseed mksnap mkjit \
		   mkorder mkstorm mkversions mkbig mkadopt mkunwind mkwrap mkbomb racefile pltnames \
		   demangleloop mkkchain
HOST_TESTS	:= $(addprefix $(BUILD)/,$(HOST_LINKED)) $(BUILD)/fuzz_recording \
		   $(BUILD)/big_target $(BUILD)/dl_target $(BUILD)/jit_target \
		   $(BUILD)/plug_a.so $(BUILD)/plug_b.so $(BUILD)/walk \
		   $(BUILD)/failalloc.so
CHECKPATCH	:= $(BUILD)/linux/scripts/checkpatch.pl

.PHONY: all module tool selftests host-tests check demo deps clean checkpatch bench bench-regsets \
	check-run demo-run debug-kernel check-debug soak \
	install uninstall dkms-install dkms-uninstall
all: module tool selftests host-tests

# --- module: one object directory per kernel -----------------------------
# Kbuild writes objects next to the sources, so each kernel gets a tree of
# symlinks to them under $(BUILD)/kmod/VERSION.
module: $(foreach v,$(KVERS),$(BUILD)/kmod/$(v)/module/perfregs.ko)
	@[ -n "$(KVERS)" ] || { echo "no kernel headers found: run 'make deps' or pass KVER=/KDIR=" >&2; exit 1; }

$(BUILD)/kmod/%/module/perfregs.ko: $(MOD_SRCS)
	@mkdir -p $(BUILD)/kmod/$*/module
	@ln -sfn $(CURDIR)/include $(BUILD)/kmod/$*/include
	@for f in $(CURDIR)/module/*.c $(CURDIR)/module/*.h $(CURDIR)/module/Kbuild; do \
		ln -sf $$f $(BUILD)/kmod/$*/module/; done
	$(MAKE) -C $(or $(KDIR),/lib/modules/$*/build) M=$(BUILD)/kmod/$*/module \
		$(if $(KCC),CC=$(KCC)) modules

# --- tool ---------------------------------------------------------------
tool: $(TOOL)

$(OBJ)/%.o: %.c | $(PB_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TOOL_LTO) $(WARN) $(TOOL_INC) -MMD -MP -c -o $@ $<
$(OBJ)/proto/%.o: $(PB_DIR)/%.c $(PB_H)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TOOL_LTO) $(WARN) $(TOOL_INC) -MMD -MP -c -o $@ $<
-include $(TOOL_LIB_OBJS:.o=.d) $(TOOL_MAIN_OBJS:.o=.d) $(HOST_LINKED:%=$(OBJ)/tests/%.d)

$(TOOL_LIB): $(TOOL_LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(TOOL): $(TOOL_MAIN_OBJS) $(TOOL_LIB)
	$(CC) $(CFLAGS) $(TOOL_LTO) $(WARN) -o $@ $(TOOL_MAIN_OBJS) $(TOOL_LIB) $(TOOL_LIBS)

$(PB_C) $(PB_H) &: $(PROTO)
	@command -v protoc-c >/dev/null || \
		{ echo "protoc-c is missing: run 'make deps' (package protobuf-c-compiler)" >&2; exit 1; }
	@mkdir -p $(PB_DIR)
	protoc-c --proto_path=$(dir $(PROTO)) --c_out=$(PB_DIR) $(notdir $(PROTO))

$(PROTO):
	@echo "$@ is missing: run 'make deps' (package golang-github-google-pprof-dev)" >&2; exit 1

# --- host-side tests: synthetic recordings and the fuzzer -----------------
host-tests: $(HOST_TESTS) $(CHECKPATCH)

# Each test program is one file of tests/ linked against the decoder's
# library: mkrec, mksimd ... (synthetic recordings), elfpeek (the
# learner's ELF reader against libelf's), racefile (a recording written
# and cut by someone else while it is decoded), mkbig (large recordings
# of known stacks in big_target, for the decoder's memory), mkwrap
# (frame pointers whose reads wrap around 2^64), mkbomb (recordings small
# on disk made to cost the decoder memory or open files), mkjit (samples
# in JIT code named by a perf map).
$(addprefix $(BUILD)/,$(HOST_LINKED)): $(BUILD)/%: tests/%.c $(TOOL_LIB) | $(PB_H)
	@mkdir -p $(OBJ)/tests
	$(CC) $(CFLAGS) -fno-lto $(WARN) $(TOOL_INC) -MMD -MP -MF $(OBJ)/tests/$*.d -MT $@ \
		-o $@ $< $(TOOL_LIB) $(TOOL_LIBS)

$(BUILD)/big_target: tests/big_target.S
	$(CC) -no-pie -o $@ $<
# the record walker and the drains of tools/lib, on rings of its own
$(BUILD)/walk: tests/walk.c tools/lib/libperfregs.c tools/lib/libperfregs.h include/uapi/linux/perfregs.h \
		include/perfregs/events.h
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(UAPI) -o $@ tests/walk.c tools/lib/libperfregs.c
$(BUILD)/dl_target: tests/dl_target.c
	$(CC) -O2 -g -Wall -o $@ $< -ldl
# a process with JIT code and its perf map (mkjit, jitmap.c's tests)
$(BUILD)/jit_target: tests/jit_target.c
	$(CC) -O1 -g $(WARN) -o $@ $<
# allocations that fail, for the paths out of memory (LD_PRELOAD)
$(BUILD)/failalloc.so: tests/failalloc.c
	@mkdir -p $(BUILD)
	$(CC) -O1 -g $(WARN) -shared -fPIC -o $@ $<
$(BUILD)/plug_%.so: tests/plug.c
	$(CC) -O1 -g -shared -fPIC -DNAME=plug_$* -o $@ $<

# libFuzzer needs clang; without it the fuzz test reports a skip.  Its
# own compile of the sources: sanitizers instrument every one.
$(BUILD)/fuzz_recording: $(TOOL_DIR)/fuzz_recording.c $(TOOL_LIB_SRCS) $(TOOL_LIB)
	@mkdir -p $(BUILD)
	@if command -v clang >/dev/null; then \
		echo "clang -fsanitize=fuzzer,address,undefined ... -o $@"; \
		clang -g -O1 -fsanitize=fuzzer,address,undefined $(TOOL_INC) -o $@ \
			$(TOOL_DIR)/fuzz_recording.c $(TOOL_LIB_SRCS) $(TOOL_LIBS); \
	else echo "fuzz_recording: no clang (make deps installs it); skipped"; fi

# --- selftests --------------------------------------------------------------
# test_fuzz replays its corpus from fuzz_corpus/ next to it
ST_CORPUS	:= $(patsubst selftests/%,$(ST_DIR)/%,$(wildcard selftests/fuzz_corpus/*.ops))
selftests: $(ST_TESTS) $(ST_WORKLOADS) $(ST_CORPUS)

$(ST_DIR)/fuzz_corpus/%.ops: selftests/fuzz_corpus/%.ops
	@mkdir -p $(@D)
	cp $< $@

$(KSFT_HARNESS): | $(LINUX_SRC_TAR)
	@mkdir -p $(KSFT_DIR)
	tar -xJf $(LINUX_SRC_TAR) -C $(KSFT_DIR) --strip-components=4 --wildcards \
		'linux-source-6.1/tools/testing/selftests/kselftest*.h'
	@touch $@

$(LINUX_SRC_TAR):
	@echo "$@ is missing: run 'make deps' (package linux-source-6.1)" >&2; exit 1

ST_COMMON	:= selftests/common.c tools/lib/libperfregs.c
$(ST_DIR)/test_%: selftests/test_%.c $(ST_COMMON) $(ST_HDRS) $(KSFT_HARNESS)
	@mkdir -p $(ST_DIR)
	$(CC) $(CFLAGS) $(WARN) -Wno-sign-compare $(UAPI) -I$(KSFT_DIR) -o $@ $< $(ST_COMMON) -lpthread


# --- running in a guest ------------------------------------------------------
# As root: tools/deps.sh (quick when everything is in), then the real work
# in a second make, which computes KVERS after the install.  As a normal
# user the packages were checked above, when this file was read.
check demo:
	@if [ "$$(id -u)" = 0 ]; then $(DEPS_SCRIPT); else $(DEPS_SCRIPT) --check; fi
	@$(MAKE) --no-print-directory $@-run

# make check runs every kernel of the matrix, the PREEMPT_RT ones too;
# RT=0 leaves those out, KVER=VERSION runs one.
ifeq ($(RT),0)
CHECK_KVERS	?= $(filter-out %-rt-amd64,$(KVERS))
else
CHECK_KVERS	?= $(KVERS)
endif

check-run: $(RUN_NEEDS)
	BUILD=$(BUILD) PERFREGS_BUILD=$(BUILD) $(CHECK_SCRIPT) $(CHECK_KVERS)

demo-run: $(RUN_NEEDS)
	BUILD=$(BUILD) PERFREGS_BUILD=$(BUILD) $(DEMO_SCRIPT) $(firstword $(KVERS))

# The debug kernels, built once each from linux-source-6.1 and cached
# under $(BUILD)/debug-kernel/FLAVOUR: kasan (KASAN, lockdep, UBSAN,
# kmemleak, fault injection), kcsan (data races) and kmsan (uninitialized
# memory, built with clang).  SANITIZER=kcsan picks one.
SANITIZERS	:= kasan kcsan kmsan
debug-kernel:
	@for f in $(or $(SANITIZER),$(SANITIZERS)); do \
		tools/debug-kernel/build.sh $(BUILD) $$f || exit 1; done

# Not part of check: 30 to 60 min to build each kernel once, then 30 to
# 60 min per kernel under TCG.  Builds each kernel and its module first.
check-debug: all
	BUILD=$(BUILD) tools/check-debug.sh $(or $(SANITIZER),$(SANITIZERS))

# The fuzzer and the stress test together on a debug kernel for MINUTES,
# a summary every 5 minutes (tools/soak.sh).
soak: all
	BUILD=$(BUILD) tools/soak.sh $(or $(KERNEL),kasan) $(or $(MINUTES),30)

deps:
	$(DEPS_SCRIPT)

# Benchmarks against perf: printed and saved, never a pass/fail.
bench: all $(BUILD)/bench/work $(BUILD)/bench/chain_pie
	bench/run --kernel $(or $(BENCH_KERNEL),6.1)

# What each register set (selectors, bases, SIMD) costs per sample, in
# instructions under -icount, beside perf's sample of the same registers.
bench-regsets: all $(BUILD)/bench/work
	bench/regsets --kernel $(or $(BENCH_KERNEL),6.1)

$(BUILD)/bench/work: bench/work.c
	@mkdir -p $(@D)
	$(CC) -O2 -static -pthread -o $@ $<

# the unwinding comparison's chain as a dynamic PIE, which perf unwinds
$(BUILD)/bench/chain_pie: selftests/chain.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -fomit-frame-pointer -fPIE -pie -o $@ $<

# checkpatch.pl is not in the headers packages: take it from linux-source.
$(CHECKPATCH): | $(LINUX_SRC_TAR)
	@mkdir -p $(BUILD)/linux
	tar -xJf $(LINUX_SRC_TAR) -C $(BUILD)/linux --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
	@touch $@

checkpatch: $(CHECKPATCH)
	$(CHECKPATCH) --no-tree -f module/*.c module/*.h include/uapi/linux/*.h include/perfregs/*.h

# --- install -----------------------------------------------------------------
PREFIX		?= /usr/local
DESTDIR		?=
VERSION		:= 1.0
INSTALL_KVER	:= $(or $(KVER),$(shell uname -r))
MODDIR		:= $(DESTDIR)/lib/modules/$(INSTALL_KVER)/extra

install: tool
	@[ -f $(BUILD)/kmod/$(INSTALL_KVER)/module/perfregs.ko ] || \
		$(MAKE) module KVER=$(INSTALL_KVER)
	install -D -m 644 $(BUILD)/kmod/$(INSTALL_KVER)/module/perfregs.ko $(MODDIR)/perfregs.ko
	install -D -m 755 $(TOOL) $(DESTDIR)$(PREFIX)/bin/perfregs-dump
	install -D -m 644 docs/perfregs-dump.1 $(DESTDIR)$(PREFIX)/share/man/man1/perfregs-dump.1
	install -D -m 644 include/uapi/linux/perfregs.h $(DESTDIR)$(PREFIX)/include/linux/perfregs.h
	install -D -m 644 udev/60-perfregs.rules $(DESTDIR)/etc/udev/rules.d/60-perfregs.rules
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(INSTALL_KVER); \
		udevadm control --reload 2>/dev/null || true; fi

uninstall:
	rm -f $(MODDIR)/perfregs.ko $(DESTDIR)$(PREFIX)/bin/perfregs-dump \
		$(DESTDIR)$(PREFIX)/share/man/man1/perfregs-dump.1 \
		$(DESTDIR)$(PREFIX)/include/linux/perfregs.h \
		$(DESTDIR)/etc/udev/rules.d/60-perfregs.rules
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(INSTALL_KVER); fi

# DKMS: the module's sources under /usr/src/perfregs-VERSION
DKMS_SRC	:= $(DESTDIR)/usr/src/perfregs-$(VERSION)
dkms-install:
	install -d $(DKMS_SRC)/module $(DKMS_SRC)/include/uapi/linux $(DKMS_SRC)/include/perfregs
	install -m 644 dkms.conf Kbuild $(DKMS_SRC)/
	install -m 644 module/*.c module/*.h module/Kbuild $(DKMS_SRC)/module/
	install -m 644 include/uapi/linux/perfregs.h $(DKMS_SRC)/include/uapi/linux/
	install -m 644 include/perfregs/*.h $(DKMS_SRC)/include/perfregs/
	@if [ -z "$(DESTDIR)" ]; then dkms add perfregs/$(VERSION) && \
		dkms install perfregs/$(VERSION); fi

dkms-uninstall:
	@if [ -z "$(DESTDIR)" ]; then dkms remove perfregs/$(VERSION) --all || true; fi
	rm -rf $(DKMS_SRC)

clean:
	rm -rf $(BUILD)
