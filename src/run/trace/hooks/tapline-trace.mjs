// tapline's dependency trace for ES modules (loaded with --import): registers
// tapline-trace-hooks.mjs, which appends each module file as it loads to $TAPLINE_TRACE_OUT.
import * as module from 'node:module';

const out = process.env.TAPLINE_TRACE_OUT;
if (out && typeof module.register === 'function') {
  try {
    module.register(new URL('./tapline-trace-hooks.mjs', import.meta.url), { data: { out } });
    globalThis[Symbol.for('tapline.trace.esm')] = true;
  } catch (_) {
    // Without the hook the trace says `#partial`, which counts as no trace.
  }
}
