// Step through each hand: previous / next, the arrow keys, and a link to a step (a finding) shows that step.
document.documentElement.classList.add("js");
var active = null;
document.querySelectorAll(".stage").forEach(function (stage) {
  var hand = stage.closest("section"), steps = hand.querySelectorAll("li.step"), at = steps.length - 1;
  function show(k) {
    if (k < 0 || k >= steps.length) return;
    at = k; active = stage;
    var li = steps[k], d = JSON.parse(li.dataset.s);
    stage.querySelectorAll(".seat").forEach(function (seat, j) {
      seat.querySelector(".stk").textContent = d.st[j];
      var bet = seat.querySelector(".bet"); bet.textContent = d.b[j]; bet.hidden = !d.b[j];
      seat.classList.toggle("folded", d.f[j] === 1);
    });
    stage.querySelector(".pot-now").textContent = d.p;
    stage.querySelector(".potbars").innerHTML = li.querySelector(".potbars").innerHTML;
    stage.querySelector(".caption").innerHTML = li.querySelector(".what").innerHTML;
    stage.querySelector(".count").textContent = stage.dataset.stepOf.replace("{i}", k + 1).replace("{n}", steps.length);
    steps.forEach(function (x) { x.classList.toggle("current", x === li); });
  }
  stage.show = function (li) { show(Array.prototype.indexOf.call(steps, li)); };
  stage.querySelector(".prev").onclick = function () { show(at - 1); };
  stage.querySelector(".next").onclick = function () { show(at + 1); };
  steps.forEach(function (li, k) { li.onclick = function () { show(k); }; });
  if (!active) active = stage;
});
function follow() {
  var li = location.hash && document.getElementById(location.hash.slice(1));
  if (li && li.matches("li.step")) { var stage = li.closest("section").querySelector(".stage"); if (stage) stage.show(li); }
}
window.addEventListener("hashchange", follow);
follow();
document.addEventListener("keydown", function (e) {
  if (!active || e.altKey || e.ctrlKey || e.metaKey) return;
  if (e.key === "ArrowLeft") active.querySelector(".prev").click();
  else if (e.key === "ArrowRight") active.querySelector(".next").click();
});
