# workload/local.mk - the workload generators (libtorusworkload): the
# built-in communication patterns of `torusemu replay --pattern`
# (pattern.c) and GPCNeT's Congestion Impact in virtual time
# (gpcnet_impact.c), declared in workload.h; the jobs, queue and
# allocators of a production period and its run over the flow model
# (production.c, allocator.c, production_run.c, production.h).  Included by Makefile.am.
#
# Clients of libtorusemu's public API only (include/): not part of the
# emulator library.  A convenience library linked into the torusemu tool,
# the tests and the benchmarks that run patterns.
noinst_LTLIBRARIES += workload/libtorusworkload.la
workload_libtorusworkload_la_SOURCES = workload/workload.h workload/gpcnet.h \
	workload/pattern.c workload/gpcnet.c workload/gpcnet_impact.c workload/production.h workload/production.c \
	workload/allocator.c workload/production_run.c
workload_libtorusworkload_la_CFLAGS = $(AM_CFLAGS) -O2
workload_libtorusworkload_la_LIBADD = -lm -lpthread
# where its users find workload.h
TWORKLOAD_CPPFLAGS = -I$(top_srcdir)/workload
