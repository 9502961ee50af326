// tapline's ESM load hook: appends each file module's path to the trace as it loads, so none
// is lost however the process ends.
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let out;
export function initialize(data) {
  out = data && data.out;
}

export async function load(url, context, next) {
  const result = await next(url, context);
  if (out && url.startsWith('file:')) {
    try {
      appendFileSync(out, fileURLToPath(url) + '\n');
    } catch (_) {
      // A line that cannot be written: the `#done` line may still come, so say so.
      try { appendFileSync(out, '#partial node\n'); } catch (_) { /* nothing more to do */ }
    }
  }
  return result;
}
