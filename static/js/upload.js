// Refuse a file over the size limit in the browser, before sending it.
document.querySelectorAll("input[type=file][data-max-bytes]").forEach(function (input) {
  input.addEventListener("change", function () {
    var limit = Number(input.dataset.maxBytes);
    var file = input.files[0];
    var mb = function (n) { return (n / 1048576).toFixed(1) + " MB"; };
    input.setCustomValidity(file && file.size > limit ? "The file is " + mb(file.size) + "; the limit is " + mb(limit) + "." : "");
    input.reportValidity();
  });
});
