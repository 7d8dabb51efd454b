# vm_thread_create_join style: Thread.new { } .join, one after another (a
# native thread created, started, handed the GVL and joined each time).
require_relative 'common'

def work(n)
  sum = 0
  n.times { |i| sum += Thread.new { i }.value }
  check(sum == n * (n - 1) / 2, "thread values sum to #{sum}, not #{n * (n - 1) / 2}")
end

result(timed(scale(50_000) / 20, scale(50_000)) { |n| work(n) }, 's')
