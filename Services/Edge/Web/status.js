// status.js: filled below
