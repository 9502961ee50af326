// A static asset the distribution's web pages load: browser code, not a test.
document.querySelector('#greeting').textContent = 'hello';
