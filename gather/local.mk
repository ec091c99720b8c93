# gather/local.mk - the job-wide gathering library (doc/gather.md): one
# leader per Gemini reads its router's link counters through PAPI and rank 0
# writes the job's per-link table (Pedretti et al., CUG 2013, section IV).
#
# It needs the PAPI built with the components (papi/prefix), which exists
# only once `make papi` has run, so the archive and its programs are built by
# explicit rules when the test or the example needs them, like
# tests/mpi/papi_mpi (mpi/local.mk); without PAPI the test is skipped.
TGATHER_SRC = gather/tgather.c gather/tgather_write.c gather/tgather_f.c
TGATHER_HDR = gather/tgather.h gather/tgather_priv.h
EXTRA_DIST += $(TGATHER_SRC) $(TGATHER_HDR) examples/gather_ring.c \
	tests/mpi/gather_ring_f.f90 tests/mpi/gather.sh \
	$(call dist_files,tests/fixtures/gather/*)
TGATHER_CFLAGS = $(AM_CFLAGS) -Wno-strict-prototypes $(TMPI_MPI_CFLAGS) \
	-I$(top_srcdir)/include -I$(top_srcdir)/gather -I$(PAPI_PREFIX)/include
TGATHER_LIBS = gather/libtorusgather.a -L$(PAPI_PREFIX)/lib -lpapi \
	-Wl,-rpath,$(PAPI_PREFIX)/lib -L$(builddir)/.libs -ltorusemu \
	-Wl,-rpath,$(abs_builddir)/.libs
TGATHER_HAVE_PAPI = [ -f "$(PAPI_PREFIX)/include/papi.h" ] && [ ! -f papi/FAILED ]

gather/libtorusgather.a: $(addprefix $(srcdir)/,$(TGATHER_SRC) $(TGATHER_HDR)) $(PAPI_STAMP) \
		libtorusemu.la
	@$(MKDIR_P) gather
	@rm -f $@ gather/*.o
	$(AM_V_GEN)if $(TGATHER_HAVE_PAPI); then \
	    for s in $(TGATHER_SRC); do \
	        $(CC) $(TGATHER_CFLAGS) -c -o gather/$$(basename $$s .c).o $(srcdir)/$$s || exit 1; \
	    done; \
	    $(AR) rcs $@ gather/tgather.o gather/tgather_write.o gather/tgather_f.o; \
	else echo "libtorusgather: PAPI not built; tests/mpi/gather.sh will be skipped"; fi
examples/gather_ring$(EXEEXT): $(srcdir)/examples/gather_ring.c gather/libtorusgather.a
	@$(MKDIR_P) examples
	@rm -f $@
	$(AM_V_GEN)if [ -f gather/libtorusgather.a ]; then \
	    $(CC) $(TGATHER_CFLAGS) -o $@ $(srcdir)/examples/gather_ring.c $(TGATHER_LIBS) \
	        $(TMPI_MPI_LIBS); fi
TGATHER_PROGS = examples/gather_ring$(EXEEXT)
if HAVE_MPIFORT
tests/mpi/gather_ring_f$(EXEEXT): $(srcdir)/tests/mpi/gather_ring_f.f90 gather/libtorusgather.a
	@$(MKDIR_P) tests/mpi
	@rm -f $@
	$(AM_V_GEN)if [ -f gather/libtorusgather.a ]; then \
	    $(MPIFORT) -o $@ $(srcdir)/tests/mpi/gather_ring_f.f90 $(TGATHER_LIBS); fi
TGATHER_PROGS += tests/mpi/gather_ring_f$(EXEEXT)
endif
CLEANFILES += gather/libtorusgather.a gather/*.o $(TGATHER_PROGS)
TESTS += tests/mpi/gather.sh
TGATHER_LOG = tests/mpi/gather.sh.log
$(TGATHER_LOG): $(TGATHER_PROGS) torusemu$(EXEEXT) libtorusemu_mpi.la
