// Reports 0, 50 and 100 out of 100 to a client that asked for progress;
// each call is awaited, as calls not awaited may reach the host out of
// order (and a value below the last one sent is dropped).
for (const p of [0, 50, 100]) {
  await tools.progress({progress: p, total: 100, message: `step ${p / 50 + 1} of 3`});
}
'Progress completed'
