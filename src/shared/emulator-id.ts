// How the emulator names itself, so pay can tell it from any other server before it drives it
// (`pay emulator …`, `pay webhooks listen`): every answer under /__emulator/ carries the header
// `Pay-Emulator: <version>`, and GET /__emulator/health answers {ok: true, emulator: "pay-emulator",
// version: <the same version>, …}. A server that answers 200 without both is not an emulator.

/** The response header every admin answer carries (lower case, as node reads it). */
export const EMULATOR_HEADER = 'pay-emulator';
/** The `emulator` field of the health answer. */
export const EMULATOR_NAME = 'pay-emulator';

// Replaced at build time by esbuild's define (the package version); tests from source see 0.0.0-dev.
declare const __PAY_VERSION__: string | undefined;
export const EMULATOR_VERSION: string = typeof __PAY_VERSION__ === 'string' ? __PAY_VERSION__ : '0.0.0-dev';

/** A version as the emulator writes one: semver-like, short, printable. */
export const VERSION_SHAPE = /^[0-9A-Za-z.+-]{1,64}$/;
