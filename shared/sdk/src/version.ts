// The package's version, sent in User-Agent; a test holds it to package.json's.
export const SDK_VERSION = '0.1.0';
