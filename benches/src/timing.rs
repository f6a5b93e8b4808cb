//! Timing that treats every format alike on a shared machine: tasks run in turn, round after
//! round, and each is summed up by the median of its runs.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// How many times each task of a [`round_robin`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Runs {
    /// Every task runs at least this many times.
    pub min: usize,
    /// Past `min`, rounds go on while all of them together have taken less than this much per
    /// task...
    pub budget_per_task: Duration,
    /// ...and while each task has run fewer than this many times.
    pub max: usize,
}

/// A task of a [`round_robin`]: one run, returning what the run measured.
pub type Task<'a, S> = Box<dyn FnMut() -> S + 'a>;

/// Runs every task once per round, round after round: run 1 of every task, then run 2 of every
/// task, and so on, so that a change in the machine's load hits all of them alike. Every other
/// round goes in reverse order, so that no task always runs after the same one. How many rounds
/// there are is up to `runs`; every task runs as many times as the others.
///
/// Returns what each task's runs returned, task by task, in the order they ran.
pub fn round_robin<S>(runs: &Runs, tasks: &mut [Task<'_, S>]) -> Vec<Vec<S>> {
    let budget = runs.budget_per_task * tasks.len() as u32;
    let start = Instant::now();
    let mut results: Vec<Vec<S>> = tasks.iter().map(|_| Vec::new()).collect();
    let mut rounds = 0;
    while rounds < runs.min || (rounds < runs.max && start.elapsed() < budget) {
        let mut round: Vec<_> = tasks.iter_mut().zip(&mut results).collect();
        if rounds % 2 == 1 {
            round.reverse();
        }
        for (task, results) in round {
            results.push(task());
        }
        rounds += 1;
    }
    results
}

/// [`round_robin`] where every turn is a burst of `burst` runs of one task, the first of which is
/// a warm-up left out of the results: for tasks that leave the machine in a state the next task
/// pays for, such as a thread pool whose threads went to sleep during a task on one thread
/// (waking an idle core took about 0.4 ms on the shared machines here) or a heap shaped by
/// another task's allocations. Each task's results are its measured runs, in order.
pub fn round_robin_warm<S>(runs: &Runs, tasks: &mut [Task<'_, S>], burst: usize) -> Vec<Vec<S>> {
    let mut bursts: Vec<Task<'_, Vec<S>>> = (tasks.iter_mut())
        .map(|task| {
            Box::new(move || {
                let _warm_up = task();
                (1..burst.max(2)).map(|_| task()).collect()
            }) as Task<'_, Vec<S>>
        })
        .collect();
    (round_robin(runs, &mut bursts).into_iter())
        .map(|bursts| bursts.into_iter().flatten().collect())
        .collect()
}

/// What `run` returns, and how long it took. The caller frees the result after the clock has
/// stopped: freeing a decoded value costs the same whichever format it came from.
pub fn timed<R>(run: impl FnOnce() -> R) -> (R, Duration) {
    let start = Instant::now();
    let result = black_box(run());
    (result, start.elapsed())
}

/// A task that times `load`, and frees what it loaded after the clock has stopped.
pub fn load_task<'a, R>(load: impl Fn() -> R + 'a) -> Task<'a, Duration> {
    Box::new(move || timed(&load).1)
}

/// The median of `times`: the middle one, or the mean of the two in the middle.
///
/// # Panics
///
/// When `times` is empty.
pub fn median(mut times: Vec<Duration>) -> Duration {
    assert!(!times.is_empty(), "the median of no times");
    times.sort_unstable();
    let middle = times.len() / 2;
    if times.len() % 2 == 1 {
        times[middle]
    } else {
        (times[middle - 1] + times[middle]) / 2
    }
}
