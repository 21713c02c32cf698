exports.pad = function (s) {
  return s.padStart(4, ' ');
};
