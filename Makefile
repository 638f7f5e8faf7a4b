# threadrun: placement library, launcher, workloads, reporter, tests.
# `make` builds every program into bin/; `make check` runs the tests;
# `make run` is the main job.  V=1 shows the commands.

CC      ?= gcc
PKGS    := hwloc libcrypto
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers \
           $(shell pkg-config --cflags $(PKGS)) -Iplacement -Isrc
LDLIBS  += $(shell pkg-config --libs $(PKGS)) -lpthread -lm
OMPFLAGS := -fopenmp

ifeq ($(V),1)
Q :=
else
Q := @
endif

BIN := bin
OBJ := build

PLACEMENT_SRC := $(wildcard placement/*.c)
COMMON_SRC    := src/opt.c src/results.c src/runenv.c src/cputrack.c src/launch.c
THREADRUN_SRC := src/threadrun.c
T2ACCEL_SRC   := $(wildcard workloads/crypto/*.c)

PLACEMENT_OBJ := $(PLACEMENT_SRC:%.c=$(OBJ)/%.o)
COMMON_OBJ    := $(COMMON_SRC:%.c=$(OBJ)/%.o)
LIBS          := $(OBJ)/libcommon.a $(OBJ)/libplacement.a

PROGRAMS := $(BIN)/threadrun $(BIN)/t2accel

TEST_PROGS := $(BIN)/tests/test_placement $(BIN)/tests/test_common \
              $(BIN)/tests/omp_where

.PHONY: all deps check run clean
all: $(PROGRAMS)

deps:
	$(Q)sh src/install-deps

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(OBJ)/libplacement.a: $(PLACEMENT_OBJ)
	$(Q)$(AR) rcs $@ $^
$(OBJ)/libcommon.a: $(COMMON_OBJ)
	$(Q)$(AR) rcs $@ $^

$(BIN)/threadrun: $(THREADRUN_SRC:%.c=$(OBJ)/%.o) $(LIBS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BIN)/t2accel: $(T2ACCEL_SRC:%.c=$(OBJ)/%.o) $(LIBS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# Tests -------------------------------------------------------------------
$(BIN)/tests/test_%: $(OBJ)/tests/unit/test_%.o $(LIBS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

$(BIN)/tests/omp_where: tests/progs/omp_where.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(OMPFLAGS) -o $@ $<

check: deps
	$(Q)$(MAKE) --no-print-directory all $(TEST_PROGS)
	$(Q)tests/run

run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bin/threadrun -n -p scatter $$(nproc)
	$(Q)bin/threadrun -p scatter $$(nproc) bin/tests/omp_where 2>/dev/null || true

clean:
	rm -rf $(BIN) $(OBJ) tests/out

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)
