# Shared by the bench/real Ruby cases (after ruby's benchmark/vm_thread_*.rb):
# the work scale, the monotonic clock, the exact checks and the RESULT line.
# Each case runs its workload once small (warm-up) and once timed.
QUICK = ENV['BENCH_REAL_QUICK'] == '1'

def scale(n) = QUICK ? n / 4 : n
def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

def check(ok, msg)
  return if ok
  warn "#{File.basename($0)}: CHECK FAILED: #{msg}"
  exit 1
end

# Runs the block with a warm-up size, then timed with the full size; returns seconds.
def timed(warm, full)
  yield warm
  t0 = now
  yield full
  now - t0
end

def result(value, unit) = puts(format('RESULT %.6g %s', value, unit))
