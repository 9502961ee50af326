// Served to the test web server by t/greet.t's siblings; it runs in a browser only.
window.addEventListener('load', function () { window.loaded = true; });
