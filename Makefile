# threadrun: placement library, launcher, workloads, reporter, tests.
# `make` builds every program into bin/; `make check` runs the tests (also
# under AddressSanitizer+UBSan and ThreadSanitizer, and short fuzzing);
# `make run` is the main job; `make bench` the benchmarks.  V=1 shows the
# commands.  SAN=asan or SAN=tsan builds a sanitized tree into bin/SAN.
# `make install PREFIX=/usr/local DESTDIR=` installs what is built, `make
# uninstall` (same variables) removes exactly that (its manifest).

# `make` alone builds every program (the version stamp's rule comes first).
.DEFAULT_GOAL := all

CC      ?= gcc
PKGS    := hwloc libcrypto libpcre2-8
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers \
           $(shell pkg-config --cflags $(PKGS))
# PKCS#11 types and constants only: modules are dlopen()ed, nothing links.
P11_CFLAGS := $(shell pkg-config --cflags p11-kit-1)
# Where p11-kit finds module files and modules: --module NAME looks there
# (the system's module files are under sysconfdir, as libp11-kit has them).
P11_VAR = "$(shell pkg-config --variable=$(1) p11-kit-1)$(2)"
P11_CFLAGS += -DP11_KIT_PACKAGE_MODULES='$(call P11_VAR,p11_module_configs)' \
	      -DP11_KIT_SYSTEM_MODULES='$(call P11_VAR,sysconfdir,/pkcs11/modules)' \
	      -DP11_KIT_SYSTEM_CONFIG='$(call P11_VAR,sysconfdir,/pkcs11/pkcs11.conf)' \
	      -DP11_KIT_MODULE_PATH='$(call P11_VAR,p11_module_path)' \
	      -DP11_KIT_LIBDIR='$(call P11_VAR,libdir)'
# --as-needed: a program records only the libraries it calls (threadrun
# loads no libcrypto: --version opens it, a launch saves ~0.7 ms).
LDLIBS  += -Wl,--as-needed $(shell pkg-config --libs $(PKGS)) -lpthread -lm
# threadrun itself takes hwloc and PCRE2 from their archives where both are
# installed (Debian's -dev packages; hwloc's wants libudev): binding their
# symbols and mapping two more libraries at every start, and unmapping them
# at its end, were a fifteenth of a launch (tests/bench/bench-launch).
# Without the archives it links them as every program does.
ARCHIVE_DIR := $(shell pkg-config --variable=libdir hwloc)
ifeq ($(words $(wildcard $(addprefix $(ARCHIVE_DIR)/,libhwloc.a libpcre2-8.a libudev.so))),3)
THREADRUN_LDLIBS := -Wl,--as-needed -Wl,-Bstatic -lhwloc -lpcre2-8 -Wl,-Bdynamic \
		    $(filter-out -lhwloc,$(shell pkg-config --static --libs hwloc)) \
		    $(shell pkg-config --libs libcrypto) -lpthread -lm
else
THREADRUN_LDLIBS := $(LDLIBS)
endif
# libpfm4 (Debian's libpfm4-dev), when there: threadrun --counters takes
# the event names it knows (docs/counters.md); without, the generic ones.
HAVE_LIBPFM := $(shell echo '\#include <perfmon/pfmlib_perf_event.h>' | \
		 $(CC) -E -x c - >/dev/null 2>&1 && echo 1)
# It is opened at run time when a name needs it (counters.c says why).
ifeq ($(HAVE_LIBPFM),1)
PFM_CFLAGS := -DHAVE_LIBPFM
endif
OMPFLAGS := -fopenmp

ifeq ($(V),1)
Q :=
else
Q := @
endif

# Sanitized builds live beside the plain one and are tested the same way.
SAN ?=
ifeq ($(SAN),)
BIN := bin
OBJ := build
else
BIN := bin/$(SAN)
OBJ := build/$(SAN)
SANFLAGS_asan := -fsanitize=address,undefined -fno-sanitize-recover=all
SANFLAGS_tsan := -fsanitize=thread
CFLAGS += $(SANFLAGS_$(SAN)) -fno-omit-frame-pointer
endif

# The parts, one library each.  Includes run one way (tests/sh/layout.sh
# checks it): workloads -> src/lib, placement; src/threadrun -> src/lib,
# placement; src/report -> src/lib; src/lib -> placement; src/preload ->
# src/lib; placement -> none.
PLACEMENT_SRC := $(wildcard placement/*.c)
LIB_SRC       := $(wildcard src/lib/*.c)
LAUNCHER_SRC  := $(filter-out src/threadrun/threadrun.c,$(wildcard src/threadrun/*.c))
REPORTER_SRC  := $(filter-out src/report/threadreport.c,$(wildcard src/report/*.c))
T2ACCEL_SRC   := $(wildcard workloads/crypto/*.c)
LINPACK_SRC   := $(wildcard workloads/linpack/*.c)
LU_OBJ        := $(filter-out %/linpack.o,$(LINPACK_SRC:%.c=$(OBJ)/%.o))
# The FPU workload is built for this machine's vector units (FMA, AVX):
# it is compiled where it runs.  LINPACK_ARCH= builds it generic.
LINPACK_ARCH  ?= -march=native

LIBS          := $(OBJ)/libthreadrun-lib.a $(OBJ)/libplacement.a

# The version --version prints: `git describe` of this checkout at build
# time, else the first line of the VERSION file a tarball carries, else
# "unknown".  The stamp is rewritten only when the string changes, so only
# then are version.o and the programs rebuilt.
VERSION := $(shell v=$$( { [ -e .git ] && git describe --tags --always --dirty 2>/dev/null; } || \
		      head -n 1 VERSION 2>/dev/null); \
		   case "$$v" in (""|*[!A-Za-z0-9._+~-]*) v=unknown ;; esac; echo "$$v")
$(OBJ)/version.stamp: FORCE
	@mkdir -p $(dir $@)
	$(Q)echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' >$@
$(OBJ)/src/lib/version.o: $(OBJ)/version.stamp
$(OBJ)/src/lib/version.o: CFLAGS += -DTHREADRUN_VERSION='"$(VERSION)"'

$(OBJ)/placement/%.o:     CFLAGS += -Iplacement
$(OBJ)/src/lib/%.o:       CFLAGS += -Isrc/lib -Iplacement
$(OBJ)/src/threadrun/%.o: CFLAGS += -Isrc/threadrun -Isrc/lib -Iplacement
$(OBJ)/src/report/%.o:    CFLAGS += -Isrc/report -Isrc/lib
$(OBJ)/workloads/%.o:     CFLAGS += -Isrc/lib -Iplacement
$(OBJ)/tests/%.o:         CFLAGS += -Isrc/lib -Isrc/threadrun -Isrc/report -Iplacement

# Workloads of one source file, workloads/NAME/NAME.c on the worker API
# (docs/workers.md): adding one is one line here.
ONEFILE_WORKLOADS :=
ONEFILE_WORKLOADS += stream

# The project's workloads, the one list: threadrun asks these (and only
# these, beside it) for their config with --print-config; `make -s
# print-workloads` prints it, and tests/sh/workloads.sh checks src/study,
# completion/threadrun and tests/SUITES against it.
WORKLOADS := t2accel linpack $(ONEFILE_WORKLOADS)
print-workloads:
	@echo $(WORKLOADS)
WORKLOADS_DEF := -DTHREADRUN_WORKLOADS='"$(WORKLOADS)"'
$(OBJ)/src/threadrun/execute.o: CFLAGS += $(WORKLOADS_DEF)

# threadrun --pthreads' library, preloaded into the program (src/preload):
# found beside threadrun, or installed in $(PREFIX)/lib/threadrun/.
PRELOAD_NAME := libthreadrun-pthreads.so
PRELOAD_LIB  := $(BIN)/$(PRELOAD_NAME)
PRELOAD_DEF  := -DTHREADRUN_PRELOAD='"$(PRELOAD_NAME)"'
$(OBJ)/src/threadrun/pthreads.o: CFLAGS += $(PRELOAD_DEF)
$(OBJ)/src/threadrun/counters.o: CFLAGS += $(PFM_CFLAGS)

PROGRAMS := $(BIN)/threadrun $(BIN)/t2accel $(BIN)/linpack $(BIN)/threadreport \
            $(ONEFILE_WORKLOADS:%=$(BIN)/%) $(PRELOAD_LIB)

# threadrun-mpi, the one program linked with MPI (src/mpi): `make mpi`,
# and `make` too when mpicc is on PATH; the rest of the build needs no MPI.
MPICC    ?= mpicc
MPI_PROG := $(BIN)/threadrun-mpi
ifneq ($(shell command -v $(MPICC) 2>/dev/null),)
PROGRAMS += $(MPI_PROG)
endif

TEST_PROGS := $(BIN)/tests/test_placement $(BIN)/tests/test_common $(BIN)/tests/test_analysis \
              $(BIN)/tests/test_lu $(BIN)/tests/test_metric $(BIN)/tests/test_histogram $(BIN)/tests/test_launcher $(BIN)/tests/test_counters $(BIN)/tests/test_units $(BIN)/tests/test_heap $(BIN)/tests/omp_where $(BIN)/tests/omp_triad \
              $(BIN)/tests/omp_sleep $(BIN)/tests/idle_parent \
              $(BIN)/tests/results_get \
              $(BIN)/tests/libfakep11.so $(BIN)/tests/pthread_where $(BIN)/tests/pthread_where_static \
              $(BIN)/tests/sleepers $(BIN)/tests/libcountkeyings.so

.PHONY: all deps check run bench clean test-progs mutate mpi install uninstall print-workloads FORCE
all: $(PROGRAMS)
test-progs: $(TEST_PROGS)

# The packages each job needs, and only those (src/install-deps says which).
deps:
	$(Q)sh src/install-deps

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(OBJ)/libplacement.a: $(PLACEMENT_SRC:%.c=$(OBJ)/%.o)
	$(Q)$(AR) rcs $@ $^
$(OBJ)/libthreadrun-lib.a: $(LIB_SRC:%.c=$(OBJ)/%.o)
	$(Q)$(AR) rcs $@ $^
$(OBJ)/liblauncher.a: $(LAUNCHER_SRC:%.c=$(OBJ)/%.o)
	$(Q)$(AR) rcs $@ $^
$(OBJ)/libreporter.a: $(REPORTER_SRC:%.c=$(OBJ)/%.o)
	$(Q)$(AR) rcs $@ $^

$(BIN)/threadrun: $(OBJ)/src/threadrun/threadrun.o $(OBJ)/liblauncher.a $(LIBS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(THREADRUN_LDLIBS)

mpi:
	$(Q)sh src/install-deps mpi
	$(Q)$(MAKE) --no-print-directory $(MPI_PROG)
$(OBJ)/src/mpi/%.o: CC := $(MPICC)
$(OBJ)/src/mpi/%.o: CFLAGS += -Isrc/lib
$(MPI_PROG): $(OBJ)/src/mpi/threadrun-mpi.o $(LIBS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(MPICC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# Loaded into programs of any build, so never sanitized (a sanitizer's
# runtime must come first in the program it checks); it takes opt.c's list
# parser and exports pthread_create alone.
$(PRELOAD_LIB): src/preload/pthreads_pin.c src/lib/opt.c src/lib/opt.h src/lib/escape.c src/lib/escape.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(filter-out $(SANFLAGS_$(SAN)),$(CFLAGS)) -Isrc/lib -shared -fPIC -fvisibility=hidden \
		-o $@ src/preload/pthreads_pin.c src/lib/opt.c src/lib/escape.c -ldl -lpthread -lm

$(BIN)/threadreport: $(OBJ)/src/report/threadreport.o $(OBJ)/libreporter.a $(LIBS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(OBJ)/workloads/crypto/%.o: CFLAGS += $(P11_CFLAGS)
$(BIN)/t2accel: $(T2ACCEL_SRC:%.c=$(OBJ)/%.o) $(LIBS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -ldl

$(OBJ)/workloads/linpack/%.o: CFLAGS += $(OMPFLAGS) -O3 $(LINPACK_ARCH)
$(BIN)/linpack: $(LINPACK_SRC:%.c=$(OBJ)/%.o) $(LIBS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(OMPFLAGS) -o $@ $^ $(LDLIBS)

# Compiled where they run, for this machine's vector units, like linpack.
define onefile_workload
$(OBJ)/workloads/$(1)/%.o: CFLAGS += -O3 $(LINPACK_ARCH)
$(BIN)/$(1): $(OBJ)/workloads/$(1)/$(1).o $(LIBS)
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  LD      $$@")
	$$(Q)$$(CC) $$(CFLAGS) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach w,$(ONEFILE_WORKLOADS),$(eval $(call onefile_workload,$(w))))

# Tests -------------------------------------------------------------------
$(OBJ)/tests/unit/test_lu.o: CFLAGS += $(OMPFLAGS) -Iworkloads/linpack
$(BIN)/tests/test_lu: $(OBJ)/tests/unit/test_lu.o $(LU_OBJ) $(LIBS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(OMPFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

$(OBJ)/tests/unit/test_heap.o: CFLAGS += -Iworkloads/crypto
$(BIN)/tests/test_heap: $(OBJ)/tests/unit/test_heap.o $(OBJ)/workloads/crypto/heap.o
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

$(BIN)/tests/test_analysis: $(OBJ)/tests/unit/test_analysis.o $(OBJ)/libreporter.a $(LIBS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

$(BIN)/tests/test_%: $(OBJ)/tests/unit/test_%.o $(OBJ)/liblauncher.a $(LIBS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

$(BIN)/tests/results_get: $(OBJ)/tests/progs/results_get.o $(LIBS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# Preloaded into t2accel by the --rekey test: not sanitized (it comes first).
$(BIN)/tests/libcountkeyings.so: tests/progs/count_keyings.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(filter-out $(SANFLAGS_$(SAN)),$(CFLAGS)) -shared -fPIC -o $@ $< -ldl

# A fake PKCS#11 module with faults on demand (tests/progs/fake_p11.c).
$(BIN)/tests/libfakep11.so: tests/progs/fake_p11.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(P11_CFLAGS) -Wno-cast-function-type -shared -fPIC -o $@ $< $(LDLIBS)

$(BIN)/tests/omp_where: tests/progs/omp_where.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(OMPFLAGS) -o $@ $<

# The pthreads programs threadrun --pthreads places: not sanitized (the
# library comes first in them); one static, which it must refuse.
# Workers with a known number of sleeps, for threadrun --counters.
$(BIN)/tests/sleepers: tests/progs/sleepers.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $< -lpthread
$(BIN)/tests/pthread_where: tests/progs/pthread_where.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(filter-out $(SANFLAGS_$(SAN)),$(CFLAGS)) -o $@ $< -lpthread
$(BIN)/tests/pthread_where_static: tests/progs/pthread_where.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(filter-out $(SANFLAGS_$(SAN)),$(CFLAGS)) -static -o $@ $< -lpthread

# The programs threadrun --monitor watches before their bind point are
# not under test: no sanitizer (omp_sleep's preinit function runs before
# a sanitizer's runtime is set up; TSan cannot see libgomp's barriers).
$(BIN)/tests/omp_sleep: tests/progs/omp_sleep.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(filter-out $(SANFLAGS_$(SAN)),$(CFLAGS)) $(OMPFLAGS) -o $@ $<
$(BIN)/tests/idle_parent: tests/progs/idle_parent.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(filter-out $(SANFLAGS_$(SAN)),$(CFLAGS)) -o $@ $<

# The program threadrun --metric reads is not under test: no sanitizer
# (TSan cannot see libgomp's barriers and reports races that are not there).
$(BIN)/tests/omp_triad: tests/progs/omp_triad.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(filter-out $(SANFLAGS_$(SAN)),$(CFLAGS)) $(OMPFLAGS) -o $@ $<

# Fuzz targets (libFuzzer, clang): the parsers that take outside input.
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,bin/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_CC      ?= clang
bin/fuzz/%: tests/fuzz/%.c $(PLACEMENT_SRC) $(LIB_SRC) $(LAUNCHER_SRC) $(REPORTER_SRC)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-DMAX_SYNTHETIC_PUS=4096ull $(WORKLOADS_DEF) $(PRELOAD_DEF) \
		-Iplacement -Isrc/lib -Isrc/threadrun -Isrc/report \
		$(shell pkg-config --cflags $(PKGS)) -o $@ $^ $(shell pkg-config --libs $(PKGS)) -lpthread -lm

check:
	$(Q)sh src/install-deps check
	$(Q)$(MAKE) --no-print-directory all test-progs
	$(Q)$(MAKE) --no-print-directory SAN=asan all test-progs
	$(Q)$(MAKE) --no-print-directory SAN=tsan all test-progs
	$(Q)$(MAKE) --no-print-directory $(FUZZ_TARGETS)
	$(Q)tests/run

# The test of the tests alone (make check runs it too).
mutate:
	$(Q)sh src/install-deps check
	$(Q)tests/mutate

# The main job: the study (src/study, README.md "The study").  It ends with
# the summary and the paths of the full report, the figures and the HTML page.
run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)src/study

# Benchmarks against the peers (not tests: ratios, never time limits).
bench:
	$(Q)sh src/install-deps bench
	$(Q)$(MAKE) --no-print-directory all $(BIN)/bench/openblas_lu $(BIN)/bench/fma16 $(BIN)/tests/results_get
	$(Q)workloads/crypto/bench-speed
	$(Q)workloads/crypto/bench-latency
	$(Q)workloads/linpack/bench/bench-openblas
	$(Q)workloads/stream/bench-stream
	$(Q)src/report/bench-report
	$(Q)tests/bench/bench-plan
	$(Q)tests/bench/bench-launch

# The check on linpack --peak: 16 FMA chains, built with linpack's flags.
$(BIN)/bench/fma16: workloads/linpack/bench/fma16.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -O3 $(LINPACK_ARCH) -o $@ $<

# The OpenBLAS peer, for the benchmark only (libopenblas-dev, liblapacke-dev).
$(BIN)/bench/openblas_lu: workloads/linpack/bench/openblas_lu.c $(LU_OBJ) $(LIBS)
	$(Q)sh src/install-deps bench
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(OMPFLAGS) -Iworkloads/linpack -Isrc/lib -o $@ $^ -llapacke -lopenblas $(LDLIBS)

# Install (GNU conventions: PREFIX, DESTDIR, BINDIR, ...) what `make` built
# (SAN= the tree it built): the programs and plot scripts, the docs
# (their links kept: README.md, docs/, results/README.md), the man pages
# (man/NAME.N into manN), the bash completion (one file, a link per
# program) and PRELOAD_LIB when the build has one.  Installed programs find
# each other beside themselves; they write results/runs.csv under the
# current directory.
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
DOCDIR      ?= $(DATADIR)/doc/threadrun
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
INSTALL     ?= install
PLOT_SCRIPTS := plot/threadplot plot/monitorplot
DOC_FILES    := README.md $(wildcard docs/*.md) results/README.md
MAN_PAGES    := $(wildcard man/*.[1-8])
COMPLETION   := $(wildcard completion/threadrun)
COMPLETED    := $(WORKLOADS) threadreport threadrun-mpi threadplot monitorplot
# PRELOAD_LIB (set above, where it is built) goes to LIBDIR/threadrun,
# where an installed threadrun looks for it (BINDIR/../lib/threadrun).
INSTALL_PROGS := $(filter-out $(PRELOAD_LIB),$(PROGRAMS))
# The folders reach src/install-tree quoted for the shell, so a value with
# spaces or quotes is one path; it records what install made in
# DOCDIR/install-manifest, and uninstall removes only what that lists.
shq = '$(subst ','\'',$(1))'
INSTALL_DIRS := PREFIX BINDIR LIBDIR DATADIR MANDIR DOCDIR BASHCOMPDIR
INSTALL_ENV = $(foreach v,DESTDIR $(INSTALL_DIRS) INSTALL,$(v)=$(call shq,$($(v))))
# A folder that cannot be one (relative, control characters, . or ..) is
# refused before anything is built or made.
ifneq ($(filter install uninstall,$(MAKECMDGOALS)),)
define newline


endef
$(foreach v,DESTDIR $(INSTALL_DIRS),$(if $(findstring $(newline),$($(v))),\
	$(error make $(firstword $(filter install uninstall,$(MAKECMDGOALS))): $(v)='$(subst $(newline),?,$($(v)))' has a newline; the install folders take absolute paths without control characters)))
INSTALL_BAD := $(shell $(INSTALL_ENV) sh src/install-tree check $(filter install uninstall,$(MAKECMDGOALS)) 2>&1)
$(if $(INSTALL_BAD),$(error $(INSTALL_BAD)))
endif

install: all $(PRELOAD_LIB)
	$(Q)$(INSTALL_ENV) PROGS='$(INSTALL_PROGS) $(PLOT_SCRIPTS)' DOC_FILES='$(DOC_FILES)' \
		MAN_PAGES='$(MAN_PAGES)' COMPLETION='$(COMPLETION)' COMPLETED='$(COMPLETED)' \
		PRELOAD_LIB='$(PRELOAD_LIB)' sh src/install-tree install

uninstall:
	$(Q)$(INSTALL_ENV) sh src/install-tree uninstall

clean:
	rm -rf bin build tests/out

-include $(shell find $(OBJ) -path '$(OBJ)/*san' -prune -o -name '*.d' -print 2>/dev/null)
