// Step through each hand: previous / next, the arrow keys, and a link to a step (a finding) shows that step.
// Each step's picture is that step's state (its data-s): stacks, bets, who folded, the cards held then, the
// pots; winners and what each was due and got only once the pots are settled.
document.documentElement.classList.add("js");
var active = null;
function cardsOf(list) {
  var box = document.createElement("span");
  box.className = "cards";
  list.forEach(function (c) {
    var card = document.createElement("span");
    card.className = "card " + c[2];
    card.title = c[3];
    card.textContent = c[0];
    if (c[1]) { var suit = document.createElement("span"); suit.className = "suit"; suit.textContent = c[1]; card.appendChild(suit); }
    box.appendChild(card);
  });
  return box;
}
function shown(el, text) { el.textContent = text; el.hidden = !text; }
document.querySelectorAll(".stage").forEach(function (stage) {
  var hand = stage.closest("section"), steps = hand.querySelectorAll("li.step"), at = 0;
  var prev = stage.querySelector(".prev"), next = stage.querySelector(".next");
  function show(k) {
    if (k < 0 || k >= steps.length) return;
    at = k; active = stage;
    var li = steps[k], d = JSON.parse(li.dataset.s);
    stage.querySelectorAll(".seat").forEach(function (seat, j) {
      seat.querySelector(".stk").textContent = d.st[j];
      shown(seat.querySelector(".bet"), d.b[j]);
      shown(seat.querySelector(".status"), d.s[j]);
      shown(seat.querySelector(".diff"), d.d[j]);
      seat.querySelector(".star").hidden = d.w[j] !== 1;
      seat.classList.toggle("folded", d.f[j] === 1);
      seat.classList.toggle("winner", d.w[j] === 1);
      seat.classList.toggle("owed", !!d.d[j]);
      var hold = seat.querySelector(".hold");
      hold.replaceChildren(cardsOf(d.c[j]));
    });
    stage.querySelector(".pot-now").textContent = d.p;
    stage.querySelector(".potbars").innerHTML = li.querySelector(".potbars").innerHTML;
    stage.querySelector(".caption").innerHTML = li.querySelector(".what").innerHTML;
    stage.querySelector(".count").textContent = stage.dataset.stepOf.replace("{i}", k + 1).replace("{n}", steps.length);
    prev.disabled = k === 0;
    next.disabled = k === steps.length - 1;
    steps.forEach(function (x) { x.classList.toggle("current", x === li); });
  }
  stage.show = function (li) { show(Array.prototype.indexOf.call(steps, li)); };
  prev.onclick = function () { show(at - 1); };
  next.onclick = function () { show(at + 1); };
  steps.forEach(function (li, k) { li.onclick = function () { show(k); }; });
  var was = active;
  show(Math.min(parseInt(stage.dataset.start || "0", 10) || 0, steps.length - 1));
  active = was || stage;
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
