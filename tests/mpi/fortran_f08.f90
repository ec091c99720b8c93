! fortran_f08.f90 - the Fortran test program with `use mpi_f08`: the same
! calls and data as ftwin.c and fortran_mpi.F90.
program fortran_f08
  use mpi_f08
  implicit none
  integer :: r, n, i, j, k, so, ro, right, left, nsize, namelen
  integer :: a(0:299), b(0:299), s(0:63), t(0:511)
  integer :: sc(0:63), sd(0:63), rc(0:63), rd(0:63)
  type(MPI_Request) :: req(4)
  type(MPI_Comm) :: node
  type(MPI_Win) :: win
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, r)
  call MPI_Comm_size(MPI_COMM_WORLD, n)
  right = mod(r + 1, n)
  left = mod(r + n - 1, n)
  do i = 0, 299
    a(i) = r * 1000 + i
  end do
  if (mod(r, 2) == 0) then
    call MPI_Send(a, 100, MPI_INTEGER, right, 1, MPI_COMM_WORLD)
    call MPI_Recv(b, 100, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  else
    call MPI_Recv(b, 100, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call MPI_Send(a, 100, MPI_INTEGER, right, 1, MPI_COMM_WORLD)
  end if
  call MPI_Irecv(b, 50, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(1))
  call MPI_Irecv(b(50:), 50, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(2))
  call MPI_Isend(a, 50, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(3))
  call MPI_Isend(a(50:), 50, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(4))
  call MPI_Waitall(4, req, MPI_STATUSES_IGNORE)
  call MPI_Sendrecv(a, 30, MPI_INTEGER, right, 3, b, 30, MPI_INTEGER, left, 3, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  b(0:24) = a(0:24)
  call MPI_Sendrecv_replace(b, 25, MPI_INTEGER, right, 4, left, 4, MPI_COMM_WORLD, &
                            MPI_STATUS_IGNORE)
  call MPI_Bcast(a, 200, MPI_INTEGER, 1, MPI_COMM_WORLD)
  call MPI_Allreduce(a, b, 300, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  do i = 0, 10 * n - 1
    t(i) = r * 1000 + i
  end do
  call MPI_Alltoall(t, 10, MPI_INTEGER, b, 10, MPI_INTEGER, MPI_COMM_WORLD)
  so = 0
  ro = 0
  do j = 0, n - 1
    sc(j) = j + 1
    rc(j) = r + 1
    sd(j) = so
    rd(j) = ro
    so = so + sc(j)
    ro = ro + rc(j)
  end do
  call MPI_Alltoallv(t, sc, sd, MPI_INTEGER, b, rc, rd, MPI_INTEGER, MPI_COMM_WORLD)
  call MPI_Reduce(a, b, 64, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  call MPI_Gather(a, 5, MPI_INTEGER, t, 5, MPI_INTEGER, mod(2, n), MPI_COMM_WORLD)
  call MPI_Allgather(a, 7, MPI_INTEGER, t, 7, MPI_INTEGER, MPI_COMM_WORLD)
  call MPI_Send_init(a, 20, MPI_INTEGER, right, 10, MPI_COMM_WORLD, req(1))
  call MPI_Recv_init(b, 20, MPI_INTEGER, left, 10, MPI_COMM_WORLD, req(2))
  do k = 1, 2
    call MPI_Startall(2, req(1:2))
    call MPI_Waitall(2, req(1:2), MPI_STATUSES_IGNORE)
  end do
  call MPI_Request_free(req(1))
  call MPI_Request_free(req(2))
  call MPI_Barrier(MPI_COMM_WORLD)
  winsize = 300 * 4
  call MPI_Win_create(a, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  disp = 0
  call MPI_Put(t, 10, MPI_INTEGER, right, disp, 10, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  disp = 10
  call MPI_Get(s, 10, MPI_INTEGER, right, disp, 10, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call MPI_Win_free(win)
  call MPI_Allreduce(MPI_IN_PLACE, a, 16, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call MPI_Get_processor_name(pname, namelen)
  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node)
  call MPI_Comm_size(node, nsize)
  write (*, '(A,I0,A,A,A,I0)') 'rank ', r, ' name ', pname(1:namelen), ' node-size ', nsize
  call MPI_Comm_free(node)
  call MPI_Finalize()
end program fortran_f08
