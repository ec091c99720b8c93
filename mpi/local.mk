# mpi/local.mk - PMPI interposition library, the `torusemu run` launcher,
# MPI example programs, MPI tests and the MPI benchmark (issue: MPI traffic
# capture and the launcher; doc/mpi.md).
#
# The MPI pieces are compiled with the C compiler and the flags Open MPI's
# wrapper reports (`mpicc --showme:*`), so libtool builds them like the rest
# of the tree.  The option is assembled from two words so automake does not
# take the make-time command for a linker flag; for the same reason every
# target linking $(TMPI_MPI_LIBS) lists its _DEPENDENCIES itself (automake
# would derive them from the command).  Fortran test programs are built with
# $(MPIFORT) by explicit rules (configure has no Fortran compiler of its own).
TMPI_SHOWME = --showme
TMPI_MPI_CFLAGS := $(shell $(MPICC) $(TMPI_SHOWME):compile 2>/dev/null)
TMPI_MPI_LIBS := $(shell $(MPICC) $(TMPI_SHOWME):link 2>/dev/null)

# ------------------------------------------------------------ the launcher
# `torusemu run` lives in utils/cmd_run.c; it needs mpirun's path and where
# the interposition library is installed.
# --virtual-time: the online timing model beside the job (utils/run_model.c)
# (the launcher-rank protocol, environment and feed: protocol/local.mk)
torusemu_SOURCES += utils/run_model.c utils/run_model.h
torusemu_CPPFLAGS = $(AM_CPPFLAGS) $(TPROTO_CPPFLAGS) $(TWORKLOAD_CPPFLAGS) -DTEMU_RUN_MPIRUN='"$(MPIRUN)"' \
	-DTEMU_RUN_LIBDIR='"$(libdir)"'

# ------------------------------- unit tests of the pure core and coll/
if HAVE_CHECK
TMPI_UNIT = tests/mpi/test_coll tests/mpi/test_classroute tests/mpi/test_vt_model \
	tests/mpi/test_clock_owner tests/mpi/test_idle_backoff
check_PROGRAMS += $(TMPI_UNIT)
TESTS += $(TMPI_UNIT)
tests_mpi_test_coll_SOURCES = tests/mpi/test_coll.c
tests_mpi_test_coll_CPPFLAGS = $(AM_CPPFLAGS) $(TCOLL_CPPFLAGS)
tests_mpi_test_coll_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_mpi_test_coll_LDADD = coll/libtoruscoll.la libtorusemu.la $(CHECK_LIBS)
tests_mpi_test_classroute_SOURCES = tests/mpi/test_classroute.c
tests_mpi_test_classroute_CPPFLAGS = $(AM_CPPFLAGS) $(TCOLL_CPPFLAGS)
tests_mpi_test_classroute_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_mpi_test_classroute_LDADD = coll/libtoruscoll.la libtorusemu.la $(CHECK_LIBS)
tests_mpi_test_vt_model_SOURCES = tests/mpi/test_vt_model.c mpi/vt_model.h mpi/vt_model.c
tests_mpi_test_vt_model_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi
tests_mpi_test_vt_model_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_mpi_test_vt_model_LDADD = libtorusemu.la $(CHECK_LIBS) -lm
tests_mpi_test_clock_owner_SOURCES = tests/mpi/test_clock_owner.c mpi/clock_owner.h \
	mpi/clock_owner.c
tests_mpi_test_clock_owner_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi
tests_mpi_test_clock_owner_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_mpi_test_clock_owner_LDADD = $(CHECK_LIBS)
tests_mpi_test_idle_backoff_SOURCES = tests/mpi/test_idle_backoff.c mpi/idle_backoff.h
tests_mpi_test_idle_backoff_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi
tests_mpi_test_idle_backoff_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_mpi_test_idle_backoff_LDADD = $(CHECK_LIBS)
endif

TMPI_SHELL_TESTS = tests/mpi/run.sh tests/mpi/ping.sh tests/mpi/p2p.sh \
	tests/mpi/rowa2a.sh tests/mpi/stencil.sh tests/mpi/names.sh tests/mpi/coll.sh \
	tests/mpi/rma.sh tests/mpi/fortran.sh tests/mpi/link.sh tests/mpi/papi.sh \
	tests/mpi/papi_units.sh tests/mpi/demo.sh tests/mpi/run_signals.sh tests/mpi/run_kill.sh \
	tests/mpi/tools.sh tests/mpi/trace.sh tests/mpi/trace_print.sh tests/mpi/run_sample.sh \
	tests/mpi/vtime.sh tests/mpi/vtime_flow.sh tests/mpi/hosts.sh
EXTRA_DIST += tests/mpi/mpilib.sh $(TMPI_SHELL_TESTS) tests/mpi/hosts_read.c tests/mpi/fortran_mpi.F90 \
	tests/mpi/fortran_f08.f90 tests/mpi/vt_wtime.f90 tests/mpi/papi_mpi.c tests/mpi/papi_units.c \
	tests/mpi/vt_cycles.c bench/bench_mpi.sh bench/bench_mpi_instr.sh bench/bench_vtime.sh bench/bench_vtime_instr.sh \
	bench/bench_vtime_live.sh bench/mpi_callgrind.sh bench/bench_hosts.sh \
	bench/mpi_setup.sh

if HAVE_MPI
# -------------------------------------------------- interposition library
lib_LTLIBRARIES += libtorusemu_mpi.la
pkgconfig_DATA += torusemu-mpi.pc
libtorusemu_mpi_la_SOURCES = mpi/tmpi.h mpi/state.c mpi/account.c \
	mpi/acct_coll.c mpi/persist.c mpi/pmpi_env.c mpi/pmpi_p2p.c mpi/pmpi_coll.c \
	mpi/pmpi_rma.c mpi/pmpi_win.c mpi/pmpi_recv.c mpi/trace.c mpi/trace_req.c \
	mpi/vt_model.h mpi/vt_model.c mpi/rank_vtime.c mpi/pmpi_comm.c mpi/pmpi_time.c \
	mpi/pmpi_mprobe.c mpi/clock_owner.h mpi/clock_owner.c \
	mpi/vt_clocks.c mpi/idle_backoff.h mpi/vt_idle.c mpi/hosts.c mpi/host_feed.c mpi/host_wire.c \
	mpi/host_copy.c
libtorusemu_mpi_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi $(TCOLL_CPPFLAGS) $(TPROTO_CPPFLAGS)
libtorusemu_mpi_la_CFLAGS = $(AM_CFLAGS) -O2 -fvisibility=hidden $(TMPI_MPI_CFLAGS)
libtorusemu_mpi_la_LIBADD = coll/libtoruscoll.la protocol/libtorusproto.la libtorusemu.la \
	$(TMPI_MPI_LIBS) -ldl -lpthread -lm
libtorusemu_mpi_la_DEPENDENCIES = coll/libtoruscoll.la protocol/libtorusproto.la libtorusemu.la
libtorusemu_mpi_la_LDFLAGS = -version-info 0:0:0

# ------------------------------------------------------------- examples
# Ordinary MPI programs (they count nothing themselves); sonar and the map
# writers also read the store through libtorusemu.  -no-install: real
# executables, no libtool wrapper scripts for mpirun to start.
TMPI_PROG_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/examples
TMPI_PROG_CFLAGS = $(AM_CFLAGS) $(TMPI_MPI_CFLAGS)
TMPI_PROG_LDADD = libtorusemu.la $(TMPI_MPI_LIBS)
noinst_PROGRAMS += examples/sonar examples/rowa2a examples/stencil27 examples/app
# app: the plain MPI program README.md and doc/mpi.md compile themselves
examples_app_SOURCES = examples/app.c
examples_app_CFLAGS = $(TMPI_PROG_CFLAGS)
examples_app_LDADD = $(TMPI_MPI_LIBS)
examples_app_DEPENDENCIES =
examples_app_LDFLAGS = -no-install
examples_sonar_SOURCES = examples/sonar.c
examples_sonar_CFLAGS = $(TMPI_PROG_CFLAGS)
examples_sonar_LDADD = $(TMPI_PROG_LDADD)
examples_sonar_DEPENDENCIES = libtorusemu.la
examples_sonar_LDFLAGS = -no-install
examples_rowa2a_SOURCES = examples/rowa2a.c examples/mapfile.c examples/mapfile.h
examples_rowa2a_CPPFLAGS = $(TMPI_PROG_CPPFLAGS)
examples_rowa2a_CFLAGS = $(TMPI_PROG_CFLAGS)
examples_rowa2a_LDADD = $(TMPI_PROG_LDADD)
examples_rowa2a_DEPENDENCIES = libtorusemu.la
examples_rowa2a_LDFLAGS = -no-install
examples_stencil27_SOURCES = examples/stencil27.c examples/mapfile.c examples/mapfile.h
examples_stencil27_CPPFLAGS = $(TMPI_PROG_CPPFLAGS)
examples_stencil27_CFLAGS = $(TMPI_PROG_CFLAGS)
examples_stencil27_LDADD = $(TMPI_PROG_LDADD)
examples_stencil27_DEPENDENCIES = libtorusemu.la
examples_stencil27_LDFLAGS = -no-install

# ------------------------------------------------------------ MPI tests
# Shell tests run MPI programs under `torusemu run` and compare the store
# with what the traffic implies (tests/mpi/tmpi_check).
TESTS += $(TMPI_SHELL_TESTS)
check_PROGRAMS += tests/mpi/tmpi_check tests/mpi/fail tests/mpi/names tests/mpi/p2p_modes \
	tests/mpi/threads tests/mpi/coll_check tests/mpi/rma_ops tests/mpi/ftwin \
	tests/mpi/sonar_linked tests/mpi/coll_trace tests/mpi/trace_p2p tests/mpi/vt_pingpong \
	tests/mpi/vt_cpu tests/mpi/vt_congest \
	tests/mpi/vt_incast tests/mpi/vt_canary tests/mpi/vt_sync tests/mpi/vt_rma \
	tests/mpi/vt_clocks tests/mpi/hold tests/mpi/vt_pollstate tests/mpi/vt_lockcpu
tests_mpi_vt_lockcpu_SOURCES = tests/mpi/vt_lockcpu.c
tests_mpi_vt_lockcpu_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_vt_lockcpu_LDADD = $(TMPI_MPI_LIBS) -lpthread -lm
tests_mpi_vt_lockcpu_DEPENDENCIES =
tests_mpi_vt_lockcpu_LDFLAGS = -no-install
tests_mpi_hold_SOURCES = tests/mpi/hold.c
tests_mpi_hold_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_hold_LDADD = $(TMPI_MPI_LIBS)
tests_mpi_hold_DEPENDENCIES =
tests_mpi_hold_LDFLAGS = -no-install
tests_mpi_tmpi_check_SOURCES = tests/mpi/tmpi_check.c
tests_mpi_tmpi_check_LDADD = libtorusemu.la
tests_mpi_tmpi_check_LDFLAGS = -no-install
tests_mpi_fail_SOURCES = tests/mpi/fail.c
tests_mpi_fail_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_fail_LDADD = $(TMPI_MPI_LIBS)
tests_mpi_fail_DEPENDENCIES =
tests_mpi_fail_LDFLAGS = -no-install
tests_mpi_names_SOURCES = tests/mpi/names.c
tests_mpi_names_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_names_LDADD = $(TMPI_PROG_LDADD)
tests_mpi_names_DEPENDENCIES = libtorusemu.la
tests_mpi_names_LDFLAGS = -no-install
tests_mpi_p2p_modes_SOURCES = tests/mpi/p2p_modes.c
tests_mpi_p2p_modes_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_p2p_modes_LDADD = $(TMPI_MPI_LIBS)
tests_mpi_p2p_modes_DEPENDENCIES =
tests_mpi_p2p_modes_LDFLAGS = -no-install
tests_mpi_threads_SOURCES = tests/mpi/threads.c
tests_mpi_threads_CFLAGS = $(TMPI_PROG_CFLAGS) -pthread
tests_mpi_threads_LDADD = $(TMPI_MPI_LIBS) -lpthread
tests_mpi_threads_DEPENDENCIES =
tests_mpi_threads_LDFLAGS = -no-install
tests_mpi_coll_check_SOURCES = tests/mpi/coll_check.c
tests_mpi_coll_check_CPPFLAGS = $(TMPI_PROG_CPPFLAGS) $(TCOLL_CPPFLAGS)
tests_mpi_coll_check_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_coll_check_LDADD = coll/libtoruscoll.la $(TMPI_PROG_LDADD)
tests_mpi_coll_check_DEPENDENCIES = coll/libtoruscoll.la libtorusemu.la
tests_mpi_coll_check_LDFLAGS = -no-install
tests_mpi_rma_ops_SOURCES = tests/mpi/rma_ops.c
tests_mpi_rma_ops_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_rma_ops_LDADD = $(TMPI_MPI_LIBS)
tests_mpi_rma_ops_DEPENDENCIES =
tests_mpi_rma_ops_LDFLAGS = -no-install
tests_mpi_trace_p2p_SOURCES = tests/mpi/trace_p2p.c
tests_mpi_trace_p2p_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_trace_p2p_LDADD = $(TMPI_MPI_LIBS)
tests_mpi_trace_p2p_DEPENDENCIES =
tests_mpi_trace_p2p_LDFLAGS = -no-install
tests_mpi_vt_pingpong_SOURCES = tests/mpi/vt_pingpong.c
tests_mpi_vt_pingpong_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_vt_pingpong_LDADD = $(TMPI_MPI_LIBS) -lm
tests_mpi_vt_pingpong_DEPENDENCIES =
tests_mpi_vt_pingpong_LDFLAGS = -no-install
tests_mpi_vt_cpu_SOURCES = tests/mpi/vt_cpu.c
tests_mpi_vt_cpu_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_vt_cpu_LDADD = $(TMPI_MPI_LIBS) -lm
tests_mpi_vt_cpu_DEPENDENCIES =
tests_mpi_vt_cpu_LDFLAGS = -no-install
tests_mpi_vt_congest_SOURCES = tests/mpi/vt_congest.c
tests_mpi_vt_congest_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_vt_congest_LDADD = $(TMPI_PROG_LDADD)
tests_mpi_vt_congest_DEPENDENCIES = libtorusemu.la
tests_mpi_vt_congest_LDFLAGS = -no-install
tests_mpi_vt_incast_SOURCES = tests/mpi/vt_incast.c
tests_mpi_vt_incast_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_vt_incast_LDADD = $(TMPI_MPI_LIBS) -lm
tests_mpi_vt_incast_DEPENDENCIES =
tests_mpi_vt_incast_LDFLAGS = -no-install
tests_mpi_vt_sync_SOURCES = tests/mpi/vt_sync.c
tests_mpi_vt_sync_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_vt_sync_LDADD = $(TMPI_MPI_LIBS) -lm
tests_mpi_vt_sync_DEPENDENCIES =
tests_mpi_vt_sync_LDFLAGS = -no-install
# vt_pollstate reads the online model's feed itself (the state a rank publishes)
tests_mpi_vt_pollstate_SOURCES = tests/mpi/vt_pollstate.c protocol/vt_feed.c
tests_mpi_vt_pollstate_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/protocol
tests_mpi_vt_pollstate_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_vt_pollstate_LDADD = $(TMPI_MPI_LIBS)
tests_mpi_vt_pollstate_DEPENDENCIES =
tests_mpi_vt_pollstate_LDFLAGS = -no-install
tests_mpi_vt_rma_SOURCES = tests/mpi/vt_rma.c
tests_mpi_vt_rma_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_vt_rma_LDADD = $(TMPI_MPI_LIBS) -lm
tests_mpi_vt_rma_DEPENDENCIES =
tests_mpi_vt_rma_LDFLAGS = -no-install
tests_mpi_vt_canary_SOURCES = tests/mpi/vt_canary.c
tests_mpi_vt_canary_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_vt_canary_LDADD = $(TMPI_MPI_LIBS) -lm
tests_mpi_vt_canary_DEPENDENCIES =
tests_mpi_vt_canary_LDFLAGS = -no-install
tests_mpi_vt_clocks_SOURCES = tests/mpi/vt_clocks.c
tests_mpi_vt_clocks_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_vt_clocks_LDADD = $(TMPI_MPI_LIBS) -ldl -lm
tests_mpi_vt_clocks_DEPENDENCIES =
tests_mpi_vt_clocks_LDFLAGS = -no-install
tests_mpi_ftwin_SOURCES = tests/mpi/ftwin.c
tests_mpi_ftwin_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_ftwin_LDADD = $(TMPI_MPI_LIBS)
tests_mpi_ftwin_DEPENDENCIES =
tests_mpi_ftwin_LDFLAGS = -no-install
tests_mpi_coll_trace_SOURCES = tests/mpi/coll_trace.c
tests_mpi_coll_trace_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_coll_trace_LDADD = $(TMPI_MPI_LIBS)
tests_mpi_coll_trace_DEPENDENCIES =
tests_mpi_coll_trace_LDFLAGS = -no-install
# sonar with the layer linked in (before libmpi), for link.sh
tests_mpi_sonar_linked_SOURCES = examples/sonar.c
tests_mpi_sonar_linked_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_sonar_linked_LDADD = libtorusemu_mpi.la libtorusemu.la $(TMPI_MPI_LIBS)
tests_mpi_sonar_linked_DEPENDENCIES = libtorusemu_mpi.la libtorusemu.la
tests_mpi_sonar_linked_LDFLAGS = -no-install

# A TAU-like PMPI tool (a shared library, as tools are) and the program
# tools.sh runs under it: plain, with the layer linked in, with the tool
# linked in.  -rpath makes libtool build the check library shared.
check_LTLIBRARIES = tests/mpi/libpmpitool.la
tests_mpi_libpmpitool_la_SOURCES = tests/mpi/pmpi_tool.c
tests_mpi_libpmpitool_la_CFLAGS = $(AM_CFLAGS) $(TMPI_MPI_CFLAGS)
tests_mpi_libpmpitool_la_LIBADD = $(TMPI_MPI_LIBS)
tests_mpi_libpmpitool_la_DEPENDENCIES =
tests_mpi_libpmpitool_la_LDFLAGS = -module -avoid-version -rpath $(abs_builddir)/tests/mpi
# a thread CPU clock only locking advances, preloaded after the layer
# (vtime.sh; tests/mpi/fake_cpu.c)
check_LTLIBRARIES += tests/mpi/libfakecpu.la
tests_mpi_libfakecpu_la_SOURCES = tests/mpi/fake_cpu.c
tests_mpi_libfakecpu_la_LDFLAGS = -module -avoid-version -rpath $(abs_builddir)/tests/mpi
check_PROGRAMS += tests/mpi/tool_app tests/mpi/tool_app_ours tests/mpi/tool_app_tool
tests_mpi_tool_app_SOURCES = tests/mpi/tool_app.c
tests_mpi_tool_app_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_tool_app_LDADD = $(TMPI_MPI_LIBS)
tests_mpi_tool_app_DEPENDENCIES =
tests_mpi_tool_app_LDFLAGS = -no-install
tests_mpi_tool_app_ours_SOURCES = tests/mpi/tool_app.c
tests_mpi_tool_app_ours_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_tool_app_ours_LDADD = libtorusemu_mpi.la libtorusemu.la $(TMPI_MPI_LIBS)
tests_mpi_tool_app_ours_DEPENDENCIES = libtorusemu_mpi.la libtorusemu.la
tests_mpi_tool_app_ours_LDFLAGS = -no-install
tests_mpi_tool_app_tool_SOURCES = tests/mpi/tool_app.c
tests_mpi_tool_app_tool_CFLAGS = $(TMPI_PROG_CFLAGS)
tests_mpi_tool_app_tool_LDADD = tests/mpi/libpmpitool.la $(TMPI_MPI_LIBS)
tests_mpi_tool_app_tool_DEPENDENCIES = tests/mpi/libpmpitool.la
tests_mpi_tool_app_tool_LDFLAGS = -no-install

# Fortran twins of tests/mpi/ftwin.c through mpif.h, `use mpi` and
# `use mpi_f08` (fortran.sh); gfortran >= 10 needs -fallow-argument-mismatch
# for mpif.h's interface-less calls.  The logs are named through variables:
# a literal target would replace automake's own rule for the log instead of
# adding a prerequisite to it.
if HAVE_MPIFORT
TMPI_FORTRAN = tests/mpi/fortran_mpifh$(EXEEXT) tests/mpi/fortran_usempi$(EXEEXT) \
	tests/mpi/fortran_f08$(EXEEXT) tests/mpi/vt_wtime$(EXEEXT)
tests/mpi/vt_wtime$(EXEEXT): $(srcdir)/tests/mpi/vt_wtime.f90
	@$(MKDIR_P) tests/mpi
	$(AM_V_GEN)$(MPIFORT) -o $@ $(srcdir)/tests/mpi/vt_wtime.f90
tests/mpi/fortran_mpifh$(EXEEXT): $(srcdir)/tests/mpi/fortran_mpi.F90
	@$(MKDIR_P) tests/mpi
	$(AM_V_GEN)$(MPIFORT) -w -fallow-argument-mismatch -DUSE_MPIF_H -o $@ \
		$(srcdir)/tests/mpi/fortran_mpi.F90
tests/mpi/fortran_usempi$(EXEEXT): $(srcdir)/tests/mpi/fortran_mpi.F90
	@$(MKDIR_P) tests/mpi
	$(AM_V_GEN)$(MPIFORT) -o $@ $(srcdir)/tests/mpi/fortran_mpi.F90
tests/mpi/fortran_f08$(EXEEXT): $(srcdir)/tests/mpi/fortran_f08.f90
	@$(MKDIR_P) tests/mpi
	$(AM_V_GEN)$(MPIFORT) -o $@ $(srcdir)/tests/mpi/fortran_f08.f90
CLEANFILES += $(TMPI_FORTRAN) tests/mpi/*.mod
TMPI_FORTRAN_LOG = tests/mpi/fortran.sh.log
$(TMPI_FORTRAN_LOG): $(TMPI_FORTRAN)
TMPI_VTIME_LOG = tests/mpi/vtime.sh.log
$(TMPI_VTIME_LOG): $(TMPI_FORTRAN)
# the mpif.h program with the layer linked in (tools.sh); --no-as-needed:
# the program calls nothing of the layer by name
TMPI_FORTRAN_OURS = tests/mpi/fortran_mpifh_ours$(EXEEXT)
CLEANFILES += $(TMPI_FORTRAN_OURS)
tests/mpi/fortran_mpifh_ours$(EXEEXT): $(srcdir)/tests/mpi/fortran_mpi.F90 libtorusemu_mpi.la
	@$(MKDIR_P) tests/mpi
	$(AM_V_GEN)$(MPIFORT) -w -fallow-argument-mismatch -DUSE_MPIF_H -o $@ \
		$(srcdir)/tests/mpi/fortran_mpi.F90 -Wl,--no-as-needed -L.libs -ltorusemu_mpi \
		-Wl,-rpath,$(abs_builddir)/.libs
endif
# tools.sh also runs the Fortran programs when there are some
TMPI_TOOLS_LOG = tests/mpi/tools.sh.log
$(TMPI_TOOLS_LOG): libtorusemu_mpi.la $(TMPI_FORTRAN) $(TMPI_FORTRAN_OURS)

# PAPI inside MPI ranks (papi.sh): built against the components area's PAPI
# once it exists; without it the test is skipped.
tests/mpi/papi_mpi$(EXEEXT): $(srcdir)/tests/mpi/papi_mpi.c $(PAPI_STAMP)
	@$(MKDIR_P) tests/mpi
	@rm -f $@
	$(AM_V_GEN)if [ -f "$(PAPI_PREFIX)/include/papi.h" ] && [ ! -f papi/FAILED ]; then \
	    $(CC) $(AM_CFLAGS) -Wno-strict-prototypes $(TMPI_MPI_CFLAGS) \
	        -I$(PAPI_PREFIX)/include -o $@ $(srcdir)/tests/mpi/papi_mpi.c \
	        -L$(PAPI_PREFIX)/lib -lpapi -Wl,-rpath,$(PAPI_PREFIX)/lib $(TMPI_MPI_LIBS); \
	else echo "papi_mpi: PAPI not built; tests/mpi/papi.sh will be skipped"; fi
tests/mpi/vt_cycles$(EXEEXT): $(srcdir)/tests/mpi/vt_cycles.c $(PAPI_STAMP)
	@$(MKDIR_P) tests/mpi
	@rm -f $@
	$(AM_V_GEN)if [ -f "$(PAPI_PREFIX)/include/papi.h" ] && [ ! -f papi/FAILED ]; then \
	    $(CC) $(AM_CFLAGS) -Wno-strict-prototypes $(TMPI_MPI_CFLAGS) \
	        -I$(PAPI_PREFIX)/include -o $@ $(srcdir)/tests/mpi/vt_cycles.c \
	        -L$(PAPI_PREFIX)/lib -lpapi -Wl,-rpath,$(PAPI_PREFIX)/lib $(TMPI_MPI_LIBS) -lm; \
	else echo "vt_cycles: PAPI not built; tests/mpi/papi.sh will be skipped"; fi
tests/mpi/hosts_read$(EXEEXT): $(srcdir)/tests/mpi/hosts_read.c $(PAPI_STAMP)
	@$(MKDIR_P) tests/mpi
	@rm -f $@
	$(AM_V_GEN)if [ -f "$(PAPI_PREFIX)/include/papi.h" ] && [ ! -f papi/FAILED ]; then \
	    $(CC) $(AM_CFLAGS) -Wno-strict-prototypes $(TMPI_MPI_CFLAGS) \
	        -I$(PAPI_PREFIX)/include -o $@ $(srcdir)/tests/mpi/hosts_read.c \
	        -L$(PAPI_PREFIX)/lib -lpapi -Wl,-rpath,$(PAPI_PREFIX)/lib $(TMPI_MPI_LIBS); \
	else echo "hosts_read: PAPI not built; tests/mpi/hosts.sh reads no PAPI"; fi
TMPI_HOSTS_LOG = tests/mpi/hosts.sh.log
$(TMPI_HOSTS_LOG): tests/mpi/hosts_read$(EXEEXT)
TMPI_PAPI_LOG = tests/mpi/papi.sh.log
$(TMPI_PAPI_LOG): tests/mpi/papi_mpi$(EXEEXT) tests/mpi/vt_cycles$(EXEEXT)
TMPI_VTIME_FLOW_LOG = tests/mpi/vtime_flow.sh.log
$(TMPI_VTIME_FLOW_LOG): tests/mpi/papi_mpi$(EXEEXT)
tests/mpi/papi_units$(EXEEXT): $(srcdir)/tests/mpi/papi_units.c $(PAPI_STAMP)
	@$(MKDIR_P) tests/mpi
	@rm -f $@
	$(AM_V_GEN)if [ -f "$(PAPI_PREFIX)/include/papi.h" ] && [ ! -f papi/FAILED ]; then \
	    $(CC) $(AM_CFLAGS) -Wno-strict-prototypes $(TMPI_MPI_CFLAGS) \
	        -I$(PAPI_PREFIX)/include -o $@ $(srcdir)/tests/mpi/papi_units.c \
	        -L$(PAPI_PREFIX)/lib -lpapi -Wl,-rpath,$(PAPI_PREFIX)/lib $(TMPI_MPI_LIBS); \
	else echo "papi_units: PAPI not built; tests/mpi/papi_units.sh will be skipped"; fi
# The main job's program (make demo): the row all-to-all reading PAPI.
examples/rowa2a_papi$(EXEEXT): $(srcdir)/examples/rowa2a_papi.c $(PAPI_STAMP)
	@$(MKDIR_P) examples
	@rm -f $@
	$(AM_V_GEN)if [ -f "$(PAPI_PREFIX)/include/papi.h" ] && [ ! -f papi/FAILED ]; then \
	    $(CC) $(AM_CFLAGS) -Wno-strict-prototypes $(TMPI_MPI_CFLAGS) \
	        -I$(PAPI_PREFIX)/include -o $@ $(srcdir)/examples/rowa2a_papi.c \
	        -L$(PAPI_PREFIX)/lib -lpapi -Wl,-rpath,$(PAPI_PREFIX)/lib $(TMPI_MPI_LIBS); \
	else echo "rowa2a_papi: PAPI not built" >&2; exit 1; fi
EXTRA_DIST += examples/rowa2a_papi.c examples/demo.sh examples/papi_app.c
CLEANFILES += tests/mpi/papi_mpi$(EXEEXT) tests/mpi/hosts_read$(EXEEXT) tests/mpi/papi_units$(EXEEXT) tests/mpi/vt_cycles$(EXEEXT) \
	examples/rowa2a_papi$(EXEEXT)
TMPI_DEMO_LOG = tests/mpi/demo.sh.log
$(TMPI_DEMO_LOG): examples/rowa2a_papi$(EXEEXT) examples/rowa2a$(EXEEXT) libtorusemu_mpi.la
TMPI_UNITS_LOG = tests/mpi/papi_units.sh.log
$(TMPI_UNITS_LOG): tests/mpi/papi_units$(EXEEXT)

# ------------------------------------------------------------ benchmark
# `make bench-mpi`: latency and message rate with and without the layer
# (bench/bench_mpi.sh prints medians; figures in doc/mpi.md).
noinst_PROGRAMS += bench/bench_mpi
bench_bench_mpi_SOURCES = bench/bench_mpi.c
bench_bench_mpi_CFLAGS = $(AM_CFLAGS) -O2 $(TMPI_MPI_CFLAGS)
bench_bench_mpi_LDADD = $(TMPI_MPI_LIBS)
bench_bench_mpi_DEPENDENCIES =
bench_bench_mpi_LDFLAGS = -no-install
bench-mpi: bench/bench_mpi$(EXEEXT) torusemu$(EXEEXT) libtorusemu_mpi.la
	sh $(top_srcdir)/bench/bench_mpi.sh $(builddir)
# what --virtual-time adds per message (bench/bench_vtime.sh; doc/virtual-time.md)
bench-vtime: bench/bench_mpi$(EXEEXT) torusemu$(EXEEXT) libtorusemu_mpi.la
	sh $(top_srcdir)/bench/bench_vtime.sh $(builddir)
bench-vtime-instr: bench/bench_mpi$(EXEEXT) torusemu$(EXEEXT) libtorusemu_mpi.la
	sh $(top_srcdir)/bench/bench_vtime_instr.sh $(builddir)
# host time per message of a live virtual-time run, 2 and 16 ranks
# (bench/bench_vtime_live.sh; doc/performance.md)
noinst_PROGRAMS += bench/bench_vtime_live
bench_bench_vtime_live_SOURCES = bench/bench_vtime_live.c
bench_bench_vtime_live_CFLAGS = $(AM_CFLAGS) -O2 $(TMPI_MPI_CFLAGS)
bench_bench_vtime_live_LDADD = $(TMPI_MPI_LIBS)
bench_bench_vtime_live_DEPENDENCIES =
bench_bench_vtime_live_LDFLAGS = -no-install
bench-vtime-live: bench/bench_vtime_live$(EXEEXT) torusemu$(EXEEXT) libtorusemu_mpi.la
	sh $(top_srcdir)/bench/bench_vtime_live.sh $(builddir)
# runs across hosts: how updates reach their owner, and the message rate
# when they do (bench/bench_hosts.sh; doc/mpi.md, doc/performance.md)
noinst_PROGRAMS += bench/bench_hosts
bench_bench_hosts_SOURCES = bench/bench_hosts.c
bench_bench_hosts_CFLAGS = $(AM_CFLAGS) -O2 $(TMPI_MPI_CFLAGS)
bench_bench_hosts_LDADD = $(TMPI_MPI_LIBS) -lpthread
bench_bench_hosts_DEPENDENCIES =
bench_bench_hosts_LDFLAGS = -no-install
bench-hosts: bench/bench_hosts$(EXEEXT) bench/bench_mpi$(EXEEXT) torusemu$(EXEEXT) libtorusemu_mpi.la
	sh $(top_srcdir)/bench/bench_hosts.sh $(builddir)
# the same comparison in instructions per MPI_Isend (callgrind, deterministic)
bench-mpi-instr: bench/bench_mpi$(EXEEXT) torusemu$(EXEEXT) libtorusemu_mpi.la
	sh $(top_srcdir)/bench/bench_mpi_instr.sh $(builddir)
else
bench-mpi bench-mpi-instr bench-vtime bench-vtime-instr bench-vtime-live bench-hosts:
	@echo "$@: Open MPI was not found by configure" >&2; exit 1
endif
.PHONY: bench-mpi bench-mpi-instr bench-vtime bench-vtime-instr bench-vtime-live bench-hosts
