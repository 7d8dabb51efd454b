// Node's worker_threads: start short-lived workers, WAVES waves of 10 at a
// time, each sums 1..N and posts the sum back; the main thread checks every
// sum and prints workers per second (libuv's threads, V8's platform
// workers and their mutexes and condition variables at every start and exit).
'use strict';
const { Worker } = require('worker_threads');
const waves = Number(process.argv[2] || 4), per = 10, n = 100000;
const code = `const { parentPort, workerData } = require('worker_threads');
let s = 0; for (let i = 1; i <= workerData; i++) s += i; parentPort.postMessage(s);`;
function one() {
  return new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, workerData: n });
    let got = null;
    w.on('message', (m) => { got = m; });
    w.on('error', reject);
    w.on('exit', (c) => (c === 0 && got === n * (n + 1) / 2) ? resolve() :
      reject(new Error(`worker exit ${c}, sum ${got}`)));
  });
}
async function run(k) { for (let i = 0; i < k; i++) await Promise.all(Array.from({ length: per }, one)); }
(async () => {
  await run(1); // warm-up
  const t0 = process.hrtime.bigint();
  await run(waves);
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`RESULT ${(waves * per / s).toFixed(2)} workers/s`);
})().catch((e) => { console.error(e.message); process.exit(1); });
