// The undici versions whose files the build's patches were written against (src/scripts/build.mjs,
// patchUndici and the plugins around it: text replaced in undici's own files). package.json pins
// undici to one of them; the build refuses any other, and so does test/unit/undici-pin.test.ts,
// before a patch could apply to code it was not written for. To move to a new undici: read the
// patched files of the new version, update the patches, add the version here, pin it.
export const UNDICI_PATCHED = ['7.30.2'];

/** One line saying why the build refuses undici `version`, or undefined when its patches know it. */
export function undiciRefusal(version) {
  if (UNDICI_PATCHED.includes(version)) return undefined;
  return `build: undici ${version} is installed, but the build's patches were written for undici ${UNDICI_PATCHED.join(', ')}: check the patches in src/scripts/build.mjs against it, then add it to src/scripts/undici-version.mjs`;
}
