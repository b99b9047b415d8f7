// Injected into dist/impl.cjs by the build (esbuild `inject`): a CommonJS bundle has no
// import.meta, so `import.meta.url` becomes `__pay_bundle.url`, the URL of the bundle file itself,
// made the first time something asks (most commands never do).
import { pathToFileURL } from 'node:url';

let url;
export const __pay_bundle = {
  get url() {
    return (url ??= pathToFileURL(__filename).href);
  },
};
