# Queue producer/consumer: 2 producers push the integers 0...N, 2 consumers
# pop and sum them (blocking when the queue is empty); the sum must be exact.
require_relative 'common'

def work(n)
  q = Queue.new
  producers = 2.times.map { |p| Thread.new { p.step(n - 1, 2) { |i| q << i } } }
  consumers = 2.times.map {
    Thread.new {
      sum = count = 0
      while (i = q.pop)
        sum += i
        count += 1
      end
      [sum, count]
    }
  }
  producers.each(&:join)
  2.times { q << nil }
  sum, count = consumers.map(&:value).transpose.map(&:sum)
  check(count == n && sum == n * (n - 1) / 2, "got #{count} items summing to #{sum}, want #{n} and #{n * (n - 1) / 2}")
end

n = scale(6_000_000)
secs = timed(n / 20, n) { |k| work(k) }
result(n / secs, 'items/s')
