// Edit distance and closeness for "did you mean": the one implementation is src/shared/distance.ts
// (the field validators of src/shared/fields.ts and the emulator use it too); this is its CLI-side name.
export { closeNames, didYouMean, editDistance, isClose } from '../shared/distance.js';
