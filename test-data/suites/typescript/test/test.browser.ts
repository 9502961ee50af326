// tstest runs *.browser.ts in a browser; tapline runs it in headless Chromium (bundled by esbuild).
document.title = 'tested';
console.log('1..1\nok 1 - in a browser');
