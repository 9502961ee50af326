// tstest runs *.browser.ts in a browser; tapline runs TypeScript in node, so a walk passes it over.
document.title = 'tested';
console.log('1..1\nok 1 - in a browser');
