// The stage-plan page (templates/admin/tournaments/tournament/plan_form.html). The form works
// without this script: it only hides what does not apply and adds stage rows.
"use strict";

(function () {
  const form = document.getElementById("tournament_form");
  if (!form) {
    return;
  }

  // --- the transfer variant's own options ------------------------------------------------------
  const variant = form.querySelector("[name='rules-variant']");
  const transferSets = form.querySelectorAll("fieldset.transfer-only");
  // Disabled by the page (a tournament's locked rules): they stay so.
  const locked = new Set(form.querySelectorAll("fieldset.transfer-only :disabled"));

  function toggleTransfer() {
    const on = variant !== null && variant.value === "transfer";
    transferSets.forEach((fieldset) => {
      fieldset.hidden = !on;
      // Disabled inputs are not sent: a hidden option cannot be refused by the engine.
      fieldset.querySelectorAll("input, select, textarea").forEach((input) => {
        input.disabled = !on || locked.has(input);
      });
    });
  }

  if (variant !== null) {
    variant.addEventListener("change", toggleTransfer);
    toggleTransfer();
  }

  // --- stage rows --------------------------------------------------------------------------------
  const body = document.getElementById("stage-rows");
  const template = document.getElementById("stage-template");
  const addButton = document.getElementById("add-stage");
  const total = form.querySelector("[name='stages-TOTAL_FORMS']");
  const maxForms = form.querySelector("[name='stages-MAX_NUM_FORMS']");
  if (!body || !template || !addButton || !total) {
    return;
  }

  // The count each format uses; the server ignores the others.
  const FORMAT_COUNT = { swiss: "rounds", round_robin: "groups", knockout: "advance_per_table" };
  const COUNTED_SERIES = ["best_of", "first_to"];

  function value(row, name) {
    const input = row.querySelector(`[name$='-${name}']`);
    return input ? input.value : "";
  }

  function mark(row, name, unused) {
    const cell = row.querySelector(`.stage-field.field-${name}`);
    if (cell) {
      // A cell with an error stays visible, so the error can be read.
      cell.classList.toggle("unused", unused && !cell.classList.contains("errors"));
    }
  }

  function refreshRow(row) {
    const format = value(row, "format");
    Object.values(FORMAT_COUNT).forEach((name) => {
      mark(row, name, format !== "" && FORMAT_COUNT[format] !== name);
    });
    mark(row, "series_target", !COUNTED_SERIES.includes(value(row, "series_format")));
    mark(row, "advance_count", value(row, "advance_rule") === "none");
  }

  function stageRows() {
    return Array.from(body.querySelectorAll(".stage-row"));
  }

  function renumber() {
    let number = 0;
    stageRows().forEach((row) => {
      const cell = row.querySelector(".stage-number");
      if (!row.hidden) {
        number += 1;
        if (cell) {
          cell.textContent = String(number);
        }
      }
    });
  }

  body.addEventListener("change", (event) => {
    const row = event.target.closest(".stage-row");
    if (row) {
      refreshRow(row);
    }
  });

  // Blank rows after the last filled one wait hidden for "Add another stage" (one stays open
  // when no stage is filled yet).
  const rows = stageRows();
  let lastFilled = -1;
  rows.forEach((row, index) => {
    if (!row.classList.contains("stage-blank")) {
      lastFilled = index;
    }
  });
  rows.forEach((row, index) => {
    if (index > lastFilled && !(lastFilled === -1 && index === 0)) {
      row.hidden = true;
    }
    refreshRow(row);
  });
  renumber();

  function openRow(row) {
    row.hidden = false;
    refreshRow(row);
    renumber();
    const first = row.querySelector("select, input");
    if (first) {
      first.focus();
    }
  }

  addButton.hidden = false;
  addButton.addEventListener("click", () => {
    const waiting = body.querySelector(".stage-row[hidden]");
    if (waiting) {
      openRow(waiting);
      return;
    }
    const index = Number(total.value);
    if (maxForms && index >= Number(maxForms.value)) {
      addButton.disabled = true;
      return;
    }
    body.insertAdjacentHTML("beforeend", template.innerHTML.replace(/__prefix__/g, String(index)));
    total.value = String(index + 1);
    const added = stageRows();
    openRow(added[added.length - 1]);
  });

  // After "Preview", show it.
  const preview = document.getElementById("preview");
  if (preview) {
    preview.scrollIntoView({ block: "start" });
  }
})();
