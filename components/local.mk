# components/local.mk - the PAPI components, the PAPI 7.0.0 build, and the
# ctests (issue 4).  Included by Makefile.am; paths are relative to the top.
#
#   make            also generates the event tables (a bad table fails here)
#   make papi       builds PAPI 7.0.0 with the components into papi/prefix
#   make check      builds PAPI if needed, then runs the ctests with the rest
#   make bench-papi PAPI_read cost of the components against perf_event
#
# The components compiled into PAPI.  Adding one is adding its name here
# (it needs components/<name>/Rules.<name>, <name>.events and, optionally,
# presets/<name>.presets).
PAPI_COMPONENTS = gemini_tile bgp_torus bgq_nwunit bgq_l2unit bgq_iounit bgq_cnkunit

GENERATED_TABLES = $(foreach c,$(PAPI_COMPONENTS),components/$(c)/$(c)_table.c \
	components/$(c)/$(c)_table.h)
# (by pattern: the generated tables components/<c>/<c>_table.[ch] belong to
# the build tree, also when it is the source tree)
EXTRA_DIST += components/papi-build.sh build-aux/install-papi.sh \
	$(filter-out $(GENERATED_TABLES),$(call dist_files,components/*/*.[ch] \
	components/*/Rules.* components/*/*.events components/*/*.awk \
	components/*/tests/*.[ch] components/*/tests/Makefile)) \
	$(call dist_files,presets/*.presets ctests/*.sh)
CLEANFILES += components/tables.stamp $(GENERATED_TABLES)
# PAPI (papi/: fetched source, build, prefix) takes minutes to rebuild:
# `make clean` keeps it, `make distclean` removes it.
distclean-local: distclean-papi
distclean-papi:
	-rm -rf papi

# ------------------------------------------------------------- tables
# components/<c>/<c>_table.[ch] from components/<c>/<c>.events and
# presets/<c>.presets (gen-events.awk checks names, descriptions, units,
# qualifiers and derived-event references; any error fails the build).
GEN_EVENTS = $(top_srcdir)/components/common/gen-events.awk
TABLE_INPUTS = $(foreach c,$(PAPI_COMPONENTS),$(top_srcdir)/components/$(c)/$(c).events \
	$(wildcard $(top_srcdir)/presets/$(c).presets))

components/tables.stamp: $(TABLE_INPUTS) $(GEN_EVENTS)
	$(AM_V_GEN)for c in $(PAPI_COMPONENTS); do \
	    presets=$(top_srcdir)/presets/$$c.presets; \
	    [ -f "$$presets" ] || presets=/dev/null; \
	    mkdir -p components/$$c && \
	    $(AWK) -v comp=$$c -v out=components/$$c -f $(GEN_EVENTS) \
	        $(top_srcdir)/components/$$c/$$c.events $$presets || exit 1; \
	done; touch $@

all-local: components/tables.stamp

# ---------------------------------------------------------------- PAPI
# Cached in papi/: source fetched once, configure once per component list,
# make incremental (components/papi-build.sh; PAPI's make gets none of our
# make's flags, so `make check TESTS=...` cannot override PAPI's own TESTS
# variable).  The stamp rule never fails
# the build: a failure is written to papi/FAILED and every PAPI test then
# fails with that reason, while the other tests still run.
PAPI_PREFIX = $(abs_builddir)/papi/prefix
PAPI_STAMP = papi/built.stamp
PAPI_DEPS = $(wildcard $(top_srcdir)/components/*/*.[ch] $(top_srcdir)/components/*/Rules.* \
	$(top_srcdir)/components/*/tests/*.[ch] $(top_srcdir)/components/*/tests/Makefile) \
	$(top_srcdir)/components/papi-build.sh components/tables.stamp libtorusemu.la

$(PAPI_STAMP): $(PAPI_DEPS)
	@mkdir -p papi; rm -f papi/FAILED
	@if MAKEFLAGS= MFLAGS= $(SHELL) $(top_srcdir)/components/papi-build.sh $(top_srcdir) papi $(builddir)/.libs \
	        components $(PAPI_COMPONENTS) 2>papi/errors.txt; then \
	    touch $@; \
	else \
	    cat papi/errors.txt >&2; \
	    { echo "PAPI $(PAPI_COMPONENTS) build failed:"; cat papi/errors.txt; } >papi/FAILED; \
	fi

papi: $(PAPI_STAMP)
	@if [ -f papi/FAILED ]; then cat papi/FAILED >&2; exit 1; fi
	@echo "PAPI with $(PAPI_COMPONENTS): $(PAPI_PREFIX)"

# ---------------------------------------------------------------- ctests
# PAPI-level tests.  The test programs live in components/<c>/tests/ and
# are built and installed by PAPI's own make; ctests/*.sh run them against
# emulator sessions and check the PAPI utilities' output.
# Overflow and multiplexing (issue 5; doc/overflow-multiplex.md): one
# program per component, and the sampling client under MPI.
PAPI_OVF_TESTS = ctests/gemini_tile_ovf.sh ctests/bgp_torus_ovf.sh ctests/bgq_nwunit_ovf.sh \
	ctests/bgq_l2unit_ovf.sh ctests/bgq_iounit_ovf.sh ctests/bgq_cnkunit_ovf.sh
PAPI_TESTS = ctests/gemini_tile_api.sh ctests/gemini_tile_inject.sh \
	ctests/bgp_torus_api.sh ctests/bgq_nwunit_api.sh ctests/bgq_nwunit_vtime.sh \
	ctests/bgq_l2unit_api.sh \
	ctests/bgq_iounit_api.sh ctests/bgq_cnkunit_api.sh ctests/bgq_inject.sh \
	ctests/nodewide.sh ctests/papi_tools.sh ctests/tables.sh $(PAPI_OVF_TESTS) \
	ctests/sampler.sh ctests/presentation.sh ctests/papi_run_tests.sh
TESTS += $(PAPI_TESTS)
ctests/gemini_tile_api.sh.log ctests/gemini_tile_inject.sh.log ctests/bgp_torus_api.sh.log \
	ctests/bgq_nwunit_api.sh.log ctests/bgq_nwunit_vtime.sh.log ctests/bgq_l2unit_api.sh.log \
	ctests/bgq_iounit_api.sh.log \
	ctests/bgq_cnkunit_api.sh.log ctests/bgq_inject.sh.log ctests/nodewide.sh.log \
	ctests/papi_tools.sh.log ctests/presentation.sh.log ctests/papi_run_tests.sh.log \
	$(PAPI_OVF_TESTS:.sh=.sh.log): \
	$(PAPI_STAMP) torusemu
TESTS_ENVIRONMENT += PAPI_COMPONENTS="$(PAPI_COMPONENTS)" AWK="$(AWK)"; export PAPI_COMPONENTS AWK;

# ------------------------------------------------------ sampling client
# sampler/torus_sampler: PAPI used as hpcrun does, in an MPI program on the
# emulated machine (ctests/sampler.sh).  Built against this tree's PAPI
# once it exists; without it, or without MPI, the test is skipped.
EXTRA_DIST += sampler/torus_sampler.c
CLEANFILES += sampler/torus_sampler$(EXEEXT)
sampler/torus_sampler$(EXEEXT): $(srcdir)/sampler/torus_sampler.c $(PAPI_STAMP)
	@$(MKDIR_P) sampler
	@rm -f $@
	$(AM_V_GEN)if [ -f "$(PAPI_PREFIX)/include/papi.h" ] && [ ! -f papi/FAILED ] && \
	        [ -n "$(TMPI_MPI_LIBS)" ]; then \
	    $(CC) $(AM_CFLAGS) -O2 -Wno-strict-prototypes $(TMPI_MPI_CFLAGS) \
	        -I$(PAPI_PREFIX)/include -o $@ $(srcdir)/sampler/torus_sampler.c \
	        -L$(PAPI_PREFIX)/lib -lpapi -Wl,-rpath,$(PAPI_PREFIX)/lib -ldl $(TMPI_MPI_LIBS); \
	else echo "torus_sampler: PAPI or MPI missing; ctests/sampler.sh will be skipped"; fi
# (the log named through a variable, so that automake keeps its own rule)
SAMPLER_LOG = ctests/sampler.sh.log
if HAVE_MPI
$(SAMPLER_LOG): sampler/torus_sampler$(EXEEXT) torusemu libtorusemu_mpi.la
else
$(SAMPLER_LOG): sampler/torus_sampler$(EXEEXT) torusemu
endif

# ------------------------------------------------------------ benchmark
bench-papi: papi
	$(SHELL) $(top_srcdir)/ctests/bench-papi.sh $(PAPI_PREFIX)

# Overflow: crossing -> handler latency, injection cost with and without
# watches, callgrind instruction counts (doc/performance.md).
bench-overflow: papi torusemu$(EXEEXT)
	$(SHELL) $(top_srcdir)/ctests/bench-overflow.sh $(builddir) $(PAPI_PREFIX)

# ------------------------------------------------------------- install
# `make install` also installs the PAPI that holds the components into the
# same prefix (its programs, libpapi, headers, papi.pc and man pages), with
# the run paths rewritten to $(libdir); building it first when needed.
# build-aux/install-papi.sh records what it installed for `make uninstall`.
INSTALL_PAPI = $(SHELL) $(top_srcdir)/build-aux/install-papi.sh
install-data-local: install-papi
uninstall-local: uninstall-papi
install-papi: papi
	$(INSTALL_PAPI) install "$(PAPI_PREFIX)" "$(DESTDIR)" "$(prefix)" "$(bindir)" \
	    "$(libdir)" "$(includedir)" "$(mandir)" "$(pkgdatadir)" "$(PATCHELF)"
uninstall-papi:
	$(INSTALL_PAPI) uninstall "$(PAPI_PREFIX)" "$(DESTDIR)" "$(prefix)" "$(bindir)" \
	    "$(libdir)" "$(includedir)" "$(mandir)" "$(pkgdatadir)" "$(PATCHELF)"

.PHONY: papi bench-papi bench-overflow install-papi uninstall-papi distclean-papi
