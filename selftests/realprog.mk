# SPDX-License-Identifier: GPL-2.0
#
# The realprog workloads (selftests/test_realprog.py): programs of the
# shapes real ones have, dynamic, with shared libraries, dlopen() and the
# vDSO.  Included by the top Makefile after workloads.mk (it uses ST_DIR,
# CC and WL_CAN_I386, and adds to ST_WORKLOADS).
#
#   $(ST_DIR)/rp_gnu64/rp_main, librp.so   rp_main.c, rp_lib.c: -m64, GNU ld
#   $(ST_DIR)/rp_gnu32/rp_main, librp.so   the same, -m32 (if the compiler can)
#   $(ST_DIR)/rp_lld64/rp_main, librp.so   the same, clang -m64 -fuse-ld=lld
#   $(ST_DIR)/rp_dlopen, rp_plug_a.so, rp_plug_b.so   rp_dlopen.c, rp_plug.c
#   $(ST_DIR)/rp_vdso_64, rp_vdso_32       rp_vdso.c
#   $(ST_DIR)/rp_sys_32                    rp_sys.c, -m32
#   $(ST_DIR)/rp_cnt/rp_cnt, libcnt.so     rp_cnt.c, rp_cnt_lib.c; and
#   $(ST_DIR)/rp_cnt_v2/libcnt.so          another build of the library
#                                          (test_container.py)
#
# All dynamic PIEs finding their libraries through a run path of $ORIGIN,
# -O2 -fomit-frame-pointer -fasynchronous-unwind-tables: only the CFI
# unwinds them.  The flags are fixed rather than taken from CFLAGS.
# A variant this machine cannot build (no multilib, no clang or lld) is
# left out with a message, as workloads.mk does.
#
# Including this file does not change the includer's default goal.

rp_saved_goal	:= $(.DEFAULT_GOAL)

RP_CFLAGS	:= -O2 -g -fasynchronous-unwind-tables -fomit-frame-pointer \
		   -Wall -Wextra -Wno-unused-parameter -Wshadow
RP_PIE		:= -fPIE -pie -Wl,-rpath,'$$ORIGIN'
RP_DEPS		:= selftests/realprog.h selftests/realprog.mk

# clang linking with lld: "y" if it links a dynamic PIE
RP_CAN_LLD	:= $(shell t=$$(mktemp) || exit; \
	echo 'int main(void) { return 0; }' | \
	clang -m64 -fuse-ld=lld -fPIE -pie -x c -o "$$t" - >/dev/null 2>&1 && echo y; rm -f "$$t")

RP_SKIPPED	:=
RP_WORKLOADS	:= $(ST_DIR)/rp_gnu64/rp_main $(ST_DIR)/rp_dlopen $(ST_DIR)/rp_vdso_64 \
		   $(ST_DIR)/rp_cnt/rp_cnt $(ST_DIR)/rp_cnt_v2/libcnt.so
ifeq ($(WL_CAN_I386),y)
RP_WORKLOADS	+= $(ST_DIR)/rp_gnu32/rp_main $(ST_DIR)/rp_vdso_32 $(ST_DIR)/rp_sys_32
else
RP_SKIPPED	+= rp_gnu32/rp_main rp_vdso_32 rp_sys_32
endif
ifeq ($(RP_CAN_LLD),y)
RP_WORKLOADS	+= $(ST_DIR)/rp_lld64/rp_main
else
RP_SKIPPED	+= rp_lld64/rp_main
endif
ST_WORKLOADS	+= $(RP_WORKLOADS)

ifneq ($(strip $(RP_SKIPPED)),)
ifneq ($(filter-out clean,$(or $(MAKECMDGOALS),all)),)
$(info workloads: cannot build $(RP_SKIPPED) (install gcc-multilib, clang, lld); skipping)
endif
endif

# $(call rp_main_rules,DIR,COMPILER AND FLAGS): rp_main and its librp.so
define rp_main_rules
$(ST_DIR)/$(1)/librp.so: selftests/rp_lib.c $(RP_DEPS)
	@mkdir -p $$(@D)
	$(2) $(RP_CFLAGS) -fPIC -shared -Wl,-soname,librp.so -o $$@ $$<
$(ST_DIR)/$(1)/rp_main: selftests/rp_main.c $(ST_DIR)/$(1)/librp.so $(RP_DEPS)
	@mkdir -p $$(@D)
	$(2) $(RP_CFLAGS) $$(RP_PIE) -o $$@ $$< -L$$(@D) -lrp
endef
$(eval $(call rp_main_rules,rp_gnu64,$(CC) -m64 -fuse-ld=bfd))
$(eval $(call rp_main_rules,rp_gnu32,$(CC) -m32 -fuse-ld=bfd))
$(eval $(call rp_main_rules,rp_lld64,clang -m64 -fuse-ld=lld))

# the plugins are not linked to rp_dlopen: it finds them at run time
$(ST_DIR)/rp_dlopen: selftests/rp_dlopen.c $(ST_DIR)/rp_plug_a.so $(ST_DIR)/rp_plug_b.so $(RP_DEPS)
	@mkdir -p $(@D)
	$(CC) -m64 $(RP_CFLAGS) $(RP_PIE) -o $@ $<
$(ST_DIR)/rp_plug_%.so: selftests/rp_plug.c $(RP_DEPS)
	@mkdir -p $(@D)
	$(CC) -m64 $(RP_CFLAGS) -fPIC -shared -DPLUG=$* -o $@ $<

$(ST_DIR)/rp_vdso_%: selftests/rp_vdso.c $(RP_DEPS)
	@mkdir -p $(@D)
	$(CC) -m$* $(RP_CFLAGS) $(RP_PIE) -o $@ $<
$(ST_DIR)/rp_sys_32: selftests/rp_sys.c $(RP_DEPS)
	@mkdir -p $(@D)
	$(CC) -m32 $(RP_CFLAGS) $(RP_PIE) -o $@ $<

# the container's library, two builds of one path (-Wl,--build-id: each its own)
$(ST_DIR)/rp_cnt/libcnt.so: selftests/rp_cnt_lib.c $(RP_DEPS)
	@mkdir -p $(@D)
	$(CC) -m64 $(RP_CFLAGS) -fPIC -shared -Wl,--build-id -Wl,-soname,libcnt.so -o $@ $<
$(ST_DIR)/rp_cnt_v2/libcnt.so: selftests/rp_cnt_lib.c $(RP_DEPS)
	@mkdir -p $(@D)
	$(CC) -m64 $(RP_CFLAGS) -DCNT_V2 -fPIC -shared -Wl,--build-id -Wl,-soname,libcnt.so -o $@ $<
$(ST_DIR)/rp_cnt/rp_cnt: selftests/rp_cnt.c $(ST_DIR)/rp_cnt/libcnt.so $(RP_DEPS)
	@mkdir -p $(@D)
	$(CC) -m64 $(RP_CFLAGS) $(RP_PIE) -o $@ $< -L$(@D) -lcnt

.DEFAULT_GOAL	:= $(rp_saved_goal)
