// Injected into dist/impl.cjs by the build (esbuild `inject`): a CommonJS bundle has no
// import.meta, so `import.meta.url` becomes the URL of the bundle file itself.
import { pathToFileURL } from 'node:url';

export const __pay_bundle_url = pathToFileURL(__filename).href;
