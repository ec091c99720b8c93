# protocol/local.mk - the launcher-rank protocol (libtorusproto): what
# `torusemu run` (utils/cmd_run.c, utils/run_model.c) and the ranks' MPI
# layer (mpi/) exchange -- the environment the launcher sets (run_env.h),
# the raw trace records the ranks write (trace_format.h) and the online
# model's shared-memory feed (vt_feed.h, vt_feed.c).  Included by
# Makefile.am.  Both sides include these headers and link this convenience
# library (hidden symbols); neither includes the other's headers.
noinst_LTLIBRARIES += protocol/libtorusproto.la
protocol_libtorusproto_la_SOURCES = protocol/run_env.h protocol/trace_format.h \
	protocol/vt_feed.h protocol/vt_feed.c
protocol_libtorusproto_la_CFLAGS = $(AM_CFLAGS) -O2
# where its users find the headers
TPROTO_CPPFLAGS = -I$(top_srcdir)/protocol
