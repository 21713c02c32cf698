'use strict';

function pad(text, width) {
  const value = String(text);
  return value.length >= width ? value : value + ' '.repeat(width - value.length);
}

function group(units) {
  return String(units).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function money(cents, currency) {
  const sign = cents < 0 ? '-' : '';
  const absolute = Math.abs(cents);
  const units = Math.floor(absolute / 100);
  const rest = String(absolute % 100).padStart(2, '0');
  return `${sign}${currency} ${group(units)}.${rest}`;
}

function line(label, cents, currency) {
  return pad(label, 12) + money(cents, currency);
}

module.exports = { pad, group, money, line };
