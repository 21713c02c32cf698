function byAge(a, b) {
  return a.age - b.age;
}
function oldest(people) {
  return people.slice().sort(byAge).pop();
}
console.log(oldest([{ age: 3 }, { age: 9 }, { age: 1 }]));
