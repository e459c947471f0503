// The executor: the coder's output arrives as input, with the task.
if (!/\d/.test(String(input.message))) {
  throw new Error("the answer states no number");
}
({message: input.message})
