//! The round robin that times the report's formats, and its medians.

use std::cell::RefCell;
use std::time::Duration;

use tree_buf_benches::timing::{median, round_robin, Runs};

/// Runs three tasks that log their index, and returns the log and what each task's runs returned.
fn run_logged(runs: &Runs) -> (Vec<usize>, Vec<Vec<usize>>) {
    let log = RefCell::new(Vec::new());
    let mut tasks: Vec<Box<dyn FnMut() -> usize + '_>> = (0..3)
        .map(|index| {
            let log = &log;
            Box::new(move || {
                log.borrow_mut().push(index);
                index
            }) as Box<_>
        })
        .collect();
    let results = round_robin(runs, &mut tasks);
    drop(tasks);
    (log.into_inner(), results)
}

#[test]
fn tasks_take_turns_each_other_round_in_reverse() {
    let runs = Runs {
        min: 3,
        budget_per_task: Duration::ZERO,
        max: 10,
    };
    let (log, results) = run_logged(&runs);
    assert_eq!(log, [0, 1, 2, 2, 1, 0, 0, 1, 2]);
    assert_eq!(results, [[0; 3], [1; 3], [2; 3]]);
}

#[test]
fn rounds_go_on_while_the_budget_lasts_up_to_the_most_runs() {
    let runs = Runs {
        min: 1,
        budget_per_task: Duration::from_secs(60),
        max: 7,
    };
    let (log, results) = run_logged(&runs);
    assert_eq!(log.len(), 21);
    assert!(results.iter().all(|runs| runs.len() == 7));
}

#[test]
fn the_least_runs_are_taken_whatever_the_budget_and_the_most() {
    let runs = Runs {
        min: 2,
        budget_per_task: Duration::ZERO,
        max: 0,
    };
    let (_, results) = run_logged(&runs);
    assert!(results.iter().all(|runs| runs.len() == 2));
}

#[test]
fn the_median_is_the_middle_time_or_the_mean_of_the_two() {
    let ms = Duration::from_millis;
    assert_eq!(median(vec![ms(9), ms(1), ms(5)]), ms(5));
    assert_eq!(median(vec![ms(8), ms(2), ms(4), ms(100)]), ms(6));
    assert_eq!(median(vec![ms(3)]), ms(3));
}
