// A helper, not a test file: ava's `files` glob (test/**/*.test.js) leaves it out.
export const sample = () => ' a  b c ';
