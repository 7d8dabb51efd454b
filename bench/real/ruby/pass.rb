# vm_thread_pass style: 4 threads hand the GVL back and forth with Thread.pass
# (each pass is a GVL hand-off: a native mutex and condition variables).
require_relative 'common'

NTHREADS = 4
def work(per)
  counts = Array.new(NTHREADS, 0)
  NTHREADS.times.map { |i|
    Thread.new { per.times { Thread.pass; counts[i] += 1 } }
  }.each(&:join)
  counts.each_with_index { |c, i| check(c == per, "thread #{i} passed #{c} times, not #{per}") }
end

per = scale(150_000)
secs = timed(per / 20, per) { |n| work(n) }
result(NTHREADS * per / secs, 'passes/s')
