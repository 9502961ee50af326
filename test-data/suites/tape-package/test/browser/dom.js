// Run in a browser by the package's browser test page, never by `tape 'test/*.js'`.
document.body.appendChild(document.createElement('div'));
