# Reduced-model studies: every method over a design, validated on held-out points (engine/study).
target_sources(mbdrom_engine PRIVATE
  study/candidate_score.cpp
  study/leaderboard.cpp
  study/study.cpp
  study/study_plan.cpp
)
